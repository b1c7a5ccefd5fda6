package fileio

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// temps are the temporary files being written (writeReplacing), which a
// signal removes before the process ends. Creating, renaming and removing
// one hold the lock, and the signal's handler takes it for good, so that
// no temporary file appears, nor half a profile under the target's name,
// once it has begun.
var temps = struct {
	sync.Mutex
	names map[string]struct{}
}{names: map[string]struct{}{}}

// endSignals end a run from outside: Ctrl-C, kill, a closed terminal.
var endSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

// RemoveTempsOnSignal catches SIGINT, SIGTERM and SIGHUP until stop is
// called: on one, the temporary files of -o are removed and the process
// dies of that signal, so that its parent sees the usual status (the
// shell's 128+N). A signal ignored when wallfold started (nohup) stays
// ignored.
func RemoveTempsOnSignal() (stop func()) {
	sigs := make(chan os.Signal, 1)
	for _, s := range endSignals {
		if !signal.Ignored(s) {
			signal.Notify(sigs, s)
		}
	}
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			temps.Lock() // held: no temporary file is created or renamed after this
			for name := range temps.names {
				os.Remove(name)
			}
			dieOf(s.(syscall.Signal))
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}

// renameTemp renames the temporary file tmp to target.
func renameTemp(tmp, target string) error {
	temps.Lock()
	defer temps.Unlock()
	delete(temps.names, tmp)
	return os.Rename(tmp, target)
}

// removeTemp removes tmp if it is still there (a failed run).
func removeTemp(tmp string) {
	temps.Lock()
	defer temps.Unlock()
	if _, ok := temps.names[tmp]; ok {
		delete(temps.names, tmp)
		os.Remove(tmp)
	}
}
