package fileio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// target is where -o's path leads: the name with no symlink left in it,
// and what the way there says about how to write it.
type target struct {
	name   string      // absolute, symlink-free
	st     fs.FileInfo // nil for a new file
	inProc bool        // a name on the way is in /proc: an open file, written in place
}

// maxHops is the kernel's limit of symlinks in one path walk (MAXSYMLINKS).
const maxHops = 40

// resolve walks path one component at a time, as the kernel's open
// would, and refuses what the shell's > would not be allowed to follow
// (followAllowed: a symlink another user planted in a sticky
// world-writable directory such as /tmp). A dangling symlink at the end
// is an error rather than a file created where it points: as root,
// following a link planted in a shared directory is the classic way to
// overwrite files, and a mistyped link is likelier than intent. Relative
// paths start at the kernel's working directory, not $PWD, whose
// symlinks cd has followed already.
func resolve(path string) (target, error) {
	resolved := "/"
	if !filepath.IsAbs(path) {
		wd, err := syscall.Getwd()
		if err != nil {
			return target{}, fmt.Errorf("%s: %v", path, err)
		}
		resolved = wd
	}
	rest := strings.Split(path, "/")
	hops, lastViaLink := 0, false
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved) // symlink-free, so lexical is right
			continue
		}
		name := filepath.Join(resolved, c)
		if strings.HasPrefix(name, "/proc/") {
			// /dev/stdout, /dev/fd/N: an open file; its "link" may name
			// no path (pipe:[N]), and is written through as it is.
			name = filepath.Join(append([]string{name}, rest...)...)
			st, err := os.Stat(name)
			return target{name: name, st: st, inProc: true}, err
		}
		fi, err := os.Lstat(name)
		switch {
		case errors.Is(err, fs.ErrNotExist) && len(rest) == 0 && !lastViaLink:
			return target{name: name}, nil // a new file
		case errors.Is(err, fs.ErrNotExist) && len(rest) == 0:
			return target{}, fmt.Errorf("%s: a symlink to %s, which does not exist", path, name)
		case err != nil:
			return target{}, fmt.Errorf("%s: %v", path, err)
		case fi.Mode()&fs.ModeSymlink == 0:
			if len(rest) > 0 && !fi.IsDir() {
				return target{}, fmt.Errorf("%s: %s is not a directory", path, name)
			}
			resolved = name
			if len(rest) == 0 {
				return target{name: name, st: fi}, nil
			}
			continue
		}
		if hops++; hops > maxHops {
			return target{}, &fs.PathError{Op: "open", Path: path, Err: syscall.ELOOP}
		}
		if err := followAllowed(path, name, fi, resolved); err != nil {
			return target{}, err
		}
		link, err := os.Readlink(name)
		if err != nil {
			return target{}, fmt.Errorf("%s: %v", path, err)
		}
		if filepath.IsAbs(link) {
			resolved = "/"
		}
		lastViaLink = lastViaLink || len(rest) == 0
		rest = append(strings.Split(link, "/"), rest...)
	}
	return target{name: resolved, st: statOrNil(resolved)}, nil
}

// statOrNil is path's FileInfo, nil when it cannot be had.
func statOrNil(path string) fs.FileInfo {
	st, err := os.Stat(path)
	if err != nil {
		return nil
	}
	return st
}
