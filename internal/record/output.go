package record

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/wallfold/wallfold/internal/fileio"
)

// CheckOutput tells, before anything is recorded, whether the profile
// can be written to path (- : stdout): its directory exists and takes a
// new file (the profile is written beside it and renamed over it), and
// nothing there is what writing would refuse (fileio.Check). It returns
// whether a file is there to be replaced.
func CheckOutput(path string) (replaces bool, err error) {
	if path == "" || path == "-" {
		return false, nil
	}
	st, err := os.Stat(path)
	switch {
	case err == nil && st.IsDir():
		return false, &Error{2, fmt.Sprintf("-o %s is a directory: give a file name, nothing was recorded", path)}
	case err == nil && !st.Mode().IsRegular():
		return false, nil // a device or a FIFO: written in place
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return false, &Error{2, fmt.Sprintf("-o %s: %v", path, err)}
	}
	dir := filepath.Dir(path)
	if dst, err := os.Stat(dir); err != nil || !dst.IsDir() {
		return false, &Error{2, fmt.Sprintf("-o %s: directory %s does not exist: create it first, nothing was recorded", path, dir)}
	}
	probe, err := os.CreateTemp(dir, "."+filepath.Base(path)+".check*")
	if err != nil {
		return false, &Error{2, fmt.Sprintf("-o %s: cannot write there (%v): nothing was recorded", path, errors.Unwrap(err))}
	}
	probe.Close()
	os.Remove(probe.Name())
	if err := fileio.Check(path); err != nil { // what writing it would refuse
		return false, &Error{2, err.Error() + "; nothing was recorded"}
	}
	return st != nil, nil
}
