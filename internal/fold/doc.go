// Package fold owns one run of wallfold: it reads perf script records
// (parse), names those perf printed with a ":TID" comm (names.go), turns
// each into the model's Event (event.go), decides once
// which samples are profiled, whether their event is a clock and its
// period (selector.go), interns a sample's stack in the output before
// the sample waits in the model (a record's frames die at the next
// Scan), filters what the model releases (filter.go: parallelism, pids,
// tids, comms, --time) and sorts it into --split windows (window.go),
// hands it to the output (emit), and says the run's verdict: its warnings,
// a --strict error, the exit class (ExitError).
//
// It reads no command line and opens no file: main gives it a Config (the
// filter values decode their own flag syntax) and an Input, and the
// writer to write to; it knows the outputs by what they take (emit's
// Writer), and their insides not at all.
package fold
