package fileio

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// followAllowed refuses the symlink at name (its Lstat fi, in directory
// dir) as the kernel's protected_symlinks does: in a sticky
// world-writable directory a link is followed only by its owner or when
// the directory's owner owns it, so that nobody follows a link another
// user planted in /tmp. It holds whatever fs.protected_symlinks says on
// this machine: most systems set it, and a profile is never worth the risk.
func followAllowed(path, name string, fi fs.FileInfo, dir string) error {
	link, ok := fi.Sys().(*syscall.Stat_t)
	var d syscall.Stat_t
	if !ok || syscall.Stat(dir, &d) != nil {
		return nil
	}
	const sticky = syscall.S_ISVTX | 0o002
	if d.Mode&sticky != sticky || link.Uid == uint32(os.Geteuid()) || link.Uid == d.Uid {
		return nil
	}
	return &Error{fmt.Sprintf("%s: not followed: %s is a symlink of uid %d in the sticky world-writable directory %s (owner uid %d); "+
		"like the kernel's protected_symlinks, wallfold follows such a link only for its owner or the directory's: write to its target by name",
		path, name, link.Uid, dir, d.Uid)}
}

// atEAccess is AT_EACCESS: check for the effective user, as open does;
// wOK is W_OK, atFDCWD AT_FDCWD.
const atEAccess, wOK, atFDCWD = 0x200, 0x2, -100

// mayWrite refuses an existing file the shell's > could not open for
// writing: access(W_OK) for the effective user, so root may (as its > on a
// 0444 file does) and another user may not, nor anyone on a read-only
// file system.
func mayWrite(path, name string, st fs.FileInfo) error {
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
