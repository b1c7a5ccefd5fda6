package fileio

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// othersInSticky tells whether a file of owner in dir is another's in a
// sticky world-writable directory (/tmp): owned by neither the effective
// user nor the directory's owner, the kernel's test for following a link
// there (protected_symlinks) or opening a file there to write
// (protected_regular). The rule holds whatever those settings say on this
// machine: most systems set them, and a profile is never worth the risk.
func othersInSticky(owner uint32, dir string) (dirOwner uint32, yes bool) {
	var d syscall.Stat_t
	if syscall.Stat(dir, &d) != nil {
		return 0, false
	}
	const sticky = syscall.S_ISVTX | 0o002
	return d.Uid, d.Mode&sticky == sticky && owner != uint32(os.Geteuid()) && owner != d.Uid
}

// followAllowed refuses the symlink at name (its Lstat fi, in directory
// dir) as protected_symlinks does, so that nobody follows a link another
// user planted in /tmp.
func followAllowed(path, name string, fi fs.FileInfo, dir string) error {
	link, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if dirOwner, yes := othersInSticky(link.Uid, dir); yes {
		return &Error{fmt.Sprintf("%s: not followed: %s is a symlink of uid %d in the sticky world-writable directory %s (owner uid %d); "+
			"like the kernel's protected_symlinks, wallfold follows such a link only for its owner or the directory's: write to its target by name",
			path, name, link.Uid, dir, dirOwner)}
	}
	return nil
}

// atEAccess is AT_EACCESS: check for the effective user, as open does;
// wOK is W_OK, atFDCWD AT_FDCWD.
const atEAccess, wOK, atFDCWD = 0x200, 0x2, -100

// mayWrite refuses an existing file the shell's > could not open for
// writing: another's in a sticky world-writable directory (as
// protected_regular; root included, as for its >), and one access(W_OK)
// refuses for the effective user, so root may write a 0444 file (as its >
// does) and another user may not, nor anyone on a read-only file system.
func mayWrite(path, name string, st fs.FileInfo) error {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		if dirOwner, yes := othersInSticky(s.Uid, filepath.Dir(name)); yes {
			return &Error{fmt.Sprintf("%s: not written: a file of uid %d in the sticky world-writable directory %s (owner uid %d); "+
				"like the kernel's protected_regular, wallfold writes such a file only for its owner or the directory's: choose another name",
				path, s.Uid, filepath.Dir(name), dirOwner)}
		}
	}
	err := syscall.Faccessat(atFDCWD, name, wOK, atEAccess)
	if err == nil {
		return nil
	}
	owner := ""
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		owner = fmt.Sprintf(", owner uid %d", s.Uid)
	}
	return &Error{fmt.Sprintf("%s: %v (mode %v%s): wallfold writes only a file you may write, as the shell's > would", path, err, st.Mode().Perm(), owner)}
}

// keepOwner gives tmp the owner and group of st, the file it replaces,
// when they differ (root writing another's file, as its > would keep
// them); an error when that is not allowed.
func keepOwner(tmp *os.File, st fs.FileInfo) error {
	want, ok := st.Sys().(*syscall.Stat_t)
	var have syscall.Stat_t
	if !ok || syscall.Fstat(int(tmp.Fd()), &have) != nil {
		return nil
	}
	if want.Uid == have.Uid && want.Gid == have.Gid {
		return nil
	}
	return tmp.Chown(int(want.Uid), int(want.Gid))
}

// otherLinks reports a file with other hard links: a rename over one name
// would leave the others with the old content, where the shell's > writes
// the file all of them name.
func otherLinks(st fs.FileInfo) bool {
	s, ok := st.Sys().(*syscall.Stat_t)
	return ok && s.Nlink > 1
}
