package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"
)

// browser is a headless Chromium driven through the DevTools protocol
// over its pipe (--remote-debugging-pipe: it reads commands on fd 3 and
// writes replies and events on fd 4, each a JSON object ended by a NUL),
// which needs no WebSocket and no npm package.
type browser struct {
	t       testing.TB
	cmd     *exec.Cmd
	send    *os.File
	mu      sync.Mutex
	nextID  int
	replies map[int]chan cdpMessage
	events  chan cdpMessage
	session string
}

type cdpMessage struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct{ Message string }
	SessionID string `json:"sessionId,omitempty"`
}

// startBrowser starts Debian's chromium with one page of 1280x1000 px, or
// skips the test where there is none (.ci/run installs it).
func startBrowser(t testing.TB) *browser {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("no chromium on PATH (apt-get install chromium; .ci/run installs it)")
	}
	toChrome, fromUs, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	toUs, fromChrome, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	// Not t.TempDir: chromium's helpers may still write there for a
	// moment after it ends, and the test would fail on its removal.
	profile, err := os.MkdirTemp("", "wallfold-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
		"--no-first-run", "--user-data-dir="+profile, "--window-size=1280,1000")
	cmd.ExtraFiles = []*os.File{toChrome, fromChrome}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its helpers in its own group, ended with it
	if err := cmd.Start(); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	toChrome.Close()
	fromChrome.Close()
	b := &browser{t: t, cmd: cmd, send: fromUs, replies: map[int]chan cdpMessage{}, events: make(chan cdpMessage, 4096)}
	t.Cleanup(func() { b.close(profile) })
	go b.read(bufio.NewReader(toUs))
	var target struct{ TargetID string }
	b.call("Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var att struct{ SessionID string }
	b.call("Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att)
	b.mu.Lock()
	b.session = att.SessionID
	b.mu.Unlock()
	b.call("Page.enable", nil, nil)
	b.call("Emulation.setDeviceMetricsOverride", map[string]any{"width": 1280, "height": 1000, "deviceScaleFactor": 1, "mobile": false}, nil)
	return b
}

// close asks chromium to end, ends its process group if it has not
// within 5 s, and removes its profile.
func (b *browser) close(profile string) {
	b.mu.Lock()
	b.session = ""
	b.mu.Unlock()
	exited := make(chan struct{})
	go func() { b.cmd.Wait(); close(exited) }()
	go b.try("Browser.close", nil, nil)
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
	}
	syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
	<-exited
	b.send.Close()
	for i := 0; i < 20 && os.RemoveAll(profile) != nil; i++ {
		time.Sleep(50 * time.Millisecond)
	}
}

// read hands replies to their callers and keeps the events.
func (b *browser) read(r *bufio.Reader) {
	for {
		line, err := r.ReadBytes(0)
		if err != nil {
			close(b.events)
			return
		}
		var m cdpMessage
		if json.Unmarshal(line[:len(line)-1], &m) != nil {
			continue
		}
		if m.ID != 0 {
			b.mu.Lock()
			ch := b.replies[m.ID]
			delete(b.replies, m.ID)
			b.mu.Unlock()
			if ch != nil {
				ch <- m
			}
			continue
		}
		select {
		case b.events <- m:
		default: // nobody waits for so many
		}
	}
}

// call sends a command to the page (or the browser before it has one)
// and decodes its result into out (nil: ignored).
func (b *browser) call(method string, params any, out any) {
	b.t.Helper()
	if err := b.try(method, params, out); err != nil {
		b.t.Fatal(err)
	}
}

func (b *browser) try(method string, params any, out any) error {
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	ch := make(chan cdpMessage, 1)
	b.replies[id] = ch
	msg, _ := json.Marshal(map[string]any{"id": id, "method": method, "params": params, "sessionId": b.session})
	b.mu.Unlock()
	if params == nil {
		msg, _ = json.Marshal(map[string]any{"id": id, "method": method, "sessionId": b.session})
	}
	if _, err := b.send.Write(append(msg, 0)); err != nil {
		return fmt.Errorf("%s: %v", method, err)
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return fmt.Errorf("%s: %s", method, m.Error.Message)
		}
		if out != nil {
			return json.Unmarshal(m.Result, out)
		}
		return nil
	case <-time.After(30 * time.Second):
		return fmt.Errorf("%s: no reply from chromium in 30 s", method)
	}
}

// wait returns the next event of method (others before it are dropped).
func (b *browser) wait(method string) cdpMessage {
	b.t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case m, ok := <-b.events:
			if !ok {
				b.t.Fatalf("chromium ended while waiting for %s", method)
			}
			if m.Method == method {
				return m
			}
		case <-timeout:
			b.t.Fatalf("no %s from chromium in 30 s", method)
		}
	}
}

// open loads url and waits for its load event.
func (b *browser) open(url string) {
	b.t.Helper()
	b.drain()
	b.call("Page.navigate", map[string]any{"url": url}, nil)
	b.wait("Page.loadEventFired")
}

// reload reloads the page and waits for its load event.
func (b *browser) reload() {
	b.t.Helper()
	b.drain()
	b.call("Page.reload", map[string]any{"ignoreCache": true}, nil)
	b.wait("Page.loadEventFired")
}

// drain drops the events so far.
func (b *browser) drain() {
	for {
		select {
		case <-b.events:
		default:
			return
		}
	}
}

// eval runs a JavaScript expression in the page and decodes its value.
func (b *browser) eval(expr string, out any) {
	b.t.Helper()
	var r struct {
		Result           struct{ Value json.RawMessage }
		ExceptionDetails *struct {
			Text      string
			Exception struct{ Description string }
		}
	}
	b.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &r)
	if r.ExceptionDetails != nil {
		b.t.Fatalf("%s: %s %s", expr, r.ExceptionDetails.Text, r.ExceptionDetails.Exception.Description)
	}
	if out != nil {
		if err := json.Unmarshal(r.Result.Value, out); err != nil {
			b.t.Fatalf("%s: %v (%s)", expr, err, r.Result.Value)
		}
	}
}

// key presses a key with modifiers (CDP's bits: 2 Ctrl, 4 Meta) as a
// user's keyboard would.
func (b *browser) key(key, code string, vk, modifiers int) {
	b.t.Helper()
	for _, typ := range []string{"rawKeyDown", "keyUp"} {
		b.call("Input.dispatchKeyEvent", map[string]any{"type": typ, "key": key, "code": code,
			"windowsVirtualKeyCode": vk, "nativeVirtualKeyCode": vk, "modifiers": modifiers}, nil)
	}
}
