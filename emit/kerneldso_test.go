package emit

import "testing"

// IsKernelDSO's cases, each as --kernel documents it.
func TestIsKernelDSO(t *testing.T) {
	for dso, want := range map[string]bool{
		"":                        false,
		"[unknown]":               false,
		"[kernel.kallsyms]":       true,
		"[vdso]":                  true,
		"[nf_tables]":             true,
		"/lib/modules/6.1/x.ko":   true,
		"x.ko":                    true,
		"ko":                      false,
		".ko":                     true,
		"/usr/lib/libc.so.6":      false,
		"/boot/vmlinux-6.1.0":     true,
		"vmlinux":                 true,
		"/usr/lib/debug/vmlinux":  true,
		"/vmlinu":                 false,
		"/opt/vmlinux/bin/app":    false,
		"/usr/local/go/bin/go":    false,
		"/tmp/perf-123.map":       false,
		"/root/.cache/go-build/x": false,
	} {
		if got := IsKernelDSO([]byte(dso)); got != want {
			t.Errorf("IsKernelDSO(%q) = %v, want %v", dso, got, want)
		}
	}
}
