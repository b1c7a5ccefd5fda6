package emit

import (
	"reflect"
	"testing"

	"github.com/wallfold/wallfold/parse"
)

// Expected names come from inferno's expected outputs
// (../testdata/corpus/inferno/results) and, for perf-PID.map JIT and
// kernel annotations, from the output of stackcollapse-perf.pl, which
// the repository does not keep.

func frame(addr, sym, dso string) parse.Frame {
	return parse.Frame{Addr: []byte(addr), Sym: []byte(sym), DSO: []byte(dso), Inlined: dso == "inlined"}
}

func TestFrameNames(t *testing.T) {
	kernel := NameOptions{Kernel: true}
	jit := NameOptions{JIT: true}
	addrs := NameOptions{Addrs: true}
	tests := []struct {
		name string
		f    parse.Frame
		java bool
		o    NameOptions
		want []string
	}{
		// cpp-stacks-std-function-collapsed.txt
		{"std::function operator() loses its ()",
			frame("561aa58dc06e", "std::function<int (int, int)>::operator()", "/home/user/genperf/perf_stacks"), false, NameOptions{},
			[]string{"std::function<int (int, int)>::operator"}},
		{"parens inside template args stay",
			frame("561aa58dbcc3", "std::_Function_handler<int (int, int), main::{lambda(int, int)#1}>::_M_invoke", "/home/user/genperf/perf_stacks"), false, NameOptions{},
			[]string{"std::_Function_handler<int (int, int), main::{lambda(int, int)#1}>::_M_invoke"}},
		{"template with spaces, no args",
			frame("7f443c9f889e", "std::endl<char, std::char_traits<char> >", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.25"), false, NameOptions{},
			[]string{"std::endl<char, std::char_traits<char> >"}},
		{"[unknown] in kernel.kallsyms",
			frame("ffffffff9c2009e7", "[unknown]", "[kernel.kallsyms]"), false, NameOptions{},
			[]string{"[[kernel.kallsyms]]"}},
		{"[unknown] in a versioned .so",
			frame("7f443c9a1b2c", "[unknown]", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.25"), false, NameOptions{},
			[]string{"[libstdc++.so.6.0.25]"}},
		{"inlined frame keeps its name",
			frame("7f443cc8af43", "__mmap64", "inlined"), false, NameOptions{},
			[]string{"__mmap64"}},
		// go-stacks-collapsed.txt
		{"Go pointer-receiver method keeps its parens",
			frame("5c7d23", "cmd/go/internal/load.(*Package).load", "/usr/lib/go/bin/go"), false, NameOptions{},
			[]string{"cmd/go/internal/load.(*Package).load"}},
		{"Go dotted init name",
			frame("538b82", "text/template.init.ializers", "/usr/lib/go/bin/go"), false, NameOptions{},
			[]string{"text/template.init.ializers"}},
		{"[unknown] in [unknown]",
			frame("fffd8118e8240489", "[unknown]", "[unknown]"), false, NameOptions{},
			[]string{"[unknown]"}},
		// procs.txt frame; "[unknown]" + DSO -> "[dso basename]"
		{"[unknown] in libc.so.6",
			frame("2724a", "[unknown]", "/usr/lib/x86_64-linux-gnu/libc.so.6"), false, NameOptions{},
			[]string{"[libc.so.6]"}},
		{"[unknown] in dash",
			frame("ae77", "[unknown]", "/usr/bin/dash"), false, NameOptions{},
			[]string{"[dash]"}},
		// java-inline-collapsed.txt (comm java)
		{"Java inline chain, L stripped, ; -> :, inner frames _[i]",
			frame("7f89cc467bf0", "Ljava/io/PrintStream;::println->Ljava/io/PrintStream;::print->Ljava/io/PrintStream;::write", "/tmp/perf-10487.map"), true, NameOptions{},
			[]string{"java/io/PrintStream:::println", "java/io/PrintStream:::print_[i]", "java/io/PrintStream:::write_[i]"}},
		{"Java class without package keeps its L",
			frame("7f89cc4a0b23", "LCounter;::countTo", "/tmp/perf-10487.map"), true, NameOptions{},
			[]string{"LCounter:::countTo"}},
		{"Java inner class $",
			frame("7f89cc45c5c3", "Ljava/nio/charset/CharsetEncoder;::encode->Lsun/nio/cs/UTF_8$Encoder;::encodeLoop", "/tmp/perf-10487.map"), true, NameOptions{},
			[]string{"java/nio/charset/CharsetEncoder:::encode", "sun/nio/cs/UTF_8$Encoder:::encodeLoop_[i]"}},
		{"[unknown] in libjvm.so",
			frame("7f89e2a1b2c3", "[unknown]", "/usr/lib/jvm/java-11-openjdk/lib/server/libjvm.so"), true, NameOptions{},
			[]string{"[libjvm.so]"}},
		// perf-rust-Yamakaky-dcpu-collapsed-all.txt (legacy Rust mangling)
		{"Rust legacy <T>::new",
			frame("38e637", "_$LT$std..io..buffered..BufReader$LT$R$GT$$GT$::new::h893d205748cacdd5", "/home/yamakaky/dev/rust/dcpu/target/debug/emulator"), false, NameOptions{},
			[]string{"<std::io::buffered::BufReader<R>>::new"}},
		{"Rust legacy <X as Y>::f with $u20$",
			frame("38e1c0", "_$LT$u8$u20$as$u20$core..clone..Clone$GT$::clone::h7bfab8630dda96cf", "/home/yamakaky/dev/rust/dcpu/target/debug/emulator"), false, NameOptions{},
			[]string{"<u8 as core::clone::Clone>::clone"}},
		{"Rust legacy $C$",
			frame("38ed61", "_$LT$core..result..Result$LT$T$C$$u20$E$GT$$GT$::and_then::h47fa4b8545196b9b", "/home/yamakaky/dev/rust/dcpu/target/debug/emulator"), false, NameOptions{},
			[]string{"<core::result::Result<T, E>>::and_then"}},
		{"Rust legacy plain path",
			frame("3a0a64", "simplelog::termlog::TermLogger::new::h94d15a7bc0cbc21f", "/home/yamakaky/dev/rust/dcpu/target/debug/emulator"), false, NameOptions{},
			[]string{"simplelog::termlog::TermLogger::new"}},
		{"Rust legacy <T as Trait>::read",
			frame("38f838", "_$LT$std..io..buffered..BufReader$LT$R$GT$$u20$as$u20$std..io..Read$GT$::read::h0092352920edf903", "/home/yamakaky/dev/rust/dcpu/target/debug/emulator"), false, NameOptions{},
			[]string{"<std::io::buffered::BufReader<R> as std::io::Read>::read"}},
		// single-event-collapsed.txt: demangled Rust with spaces
		{"Rust <X as Y>::f (already demangled)",
			frame("56203912789e", "<alloc::boxed::Box<T> as gc::trace::Trace>::trace::mark", "/workspaces/boa/target/debug/boa_cli"), false, NameOptions{},
			[]string{"<alloc::boxed::Box<T> as gc::trace::Trace>::trace::mark"}},
		// perf-rust-Yamakaky-dcpu-collapsed-addrs.txt
		{"addrs: [unknown] in [unknown]",
			frame("40", "[unknown]", "[unknown]"), false, addrs,
			[]string{"[unknown <40>]"}},
		// perf-rust-Yamakaky-dcpu-collapsed-kernel.txt
		{"kernel: kallsyms frame",
			frame("7d9750", "page_fault", "[kernel.kallsyms]"), false, kernel,
			[]string{"page_fault_[k]"}},
		// versioned-vmlinux-collapsed-kernel.txt
		{"kernel: versioned vmlinux",
			frame("ffffffffb8f03eaa", "net_rx_action", "/usr/lib/debug/boot/vmlinux-5.4.14-cloudflare-2020.1.11"), false, kernel,
			[]string{"net_rx_action_[k]"}},
		{"kernel: module .ko",
			frame("ffffffffc087beee", "mlx5e_napi_poll", "/lib/modules/5.4.14-cloudflare-2020.1.11/kernel/drivers/net/ethernet/mellanox/mlx5/core/mlx5_core.ko"), false, kernel,
			[]string{"mlx5e_napi_poll_[k]"}},
		{"kernel: [unknown] in versioned vmlinux",
			frame("ffffffffb8a0001a", "[unknown]", "/usr/lib/debug/boot/vmlinux-5.4.14-cloudflare-2020.1.11"), false, kernel,
			[]string{"[vmlinux-5.4.14-cloudflare-2020.1.11]_[k]"}},
		{"kernel: bpf_prog DSO is not kernel",
			frame("ffffffffc09ace93", "bpf_prog_2b956549c660136a_uni_l4lb", "bpf_prog_2b956549c660136a_uni_l4lb"), false, kernel,
			[]string{"bpf_prog_2b956549c660136a_uni_l4lb"}},
		{"kernel option off: no annotation",
			frame("7d9750", "page_fault", "[kernel.kallsyms]"), false, NameOptions{},
			[]string{"page_fault"}},
		// sourcepawn-jitdump-collapsed-jit.txt
		{"jit: jitdump symbol with spaces",
			frame("f719f06f", "<jit invoke stub>", "/tmp/jitted-31714-4145672264.so"), false, jit,
			[]string{"<jit invoke stub>_[j]"}},
		{"jit: jitdump symbol",
			frame("f719f4a4", "fib.smx::fib", "/tmp/jitted-31714-4145673320.so"), false, jit,
			[]string{"fib.smx::fib_[j]"}},
		{"jit: non-JIT frame unchanged",
			frame("8059187", "sp::Environment::Invoke", "/root/code/sourcepawn/build/vm/spshell/linux-x86/spshell"), false, jit,
			[]string{"sp::Environment::Invoke"}},
		// flamegraph results: perf-numa-stacks-01-collapsed-all, perf-java-stacks-01-collapsed-jit
		{"jit: [unknown] in perf-PID.map",
			frame("7f08b5783b58", "[unknown]", "/tmp/perf-10939.map"), false, jit,
			[]string{"[perf-10939.map]_[j]"}},
		{"jit: Java perf-map frame",
			frame("7f6b2d259b1d", "Lorg/mozilla/javascript/WrapFactory;.wrap", "/tmp/perf-23895.map"), true, jit,
			[]string{"org/mozilla/javascript/WrapFactory:.wrap_[j]"}},
		// conventions of stackcollapse-perf.pl
		{"symbol starting with ( is skipped",
			frame("7f0000001000", "(anonymous namespace)::run", "/usr/bin/app"), false, NameOptions{},
			nil},
		{"anonymous namespace kept, args cut",
			frame("7f0000001000", "app::(anonymous namespace)::Worker::run(int, char**)", "/usr/bin/app"), false, NameOptions{},
			[]string{"app::(anonymous namespace)::Worker::run"}},
		{"semicolon becomes colon",
			frame("7f0000001000", "weird;name", "/usr/bin/app"), false, NameOptions{},
			[]string{"weird:name"}},
		{"no symbol, no DSO",
			frame("7f0000001000", "", ""), false, NameOptions{},
			[]string{"[unknown]"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.f
			got := FrameNames(nil, &f, tc.java, tc.o)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("FrameNames = %q, want %q", got, tc.want)
			}
			// Appends to dst without touching it.
			pre := []string{"root"}
			got2 := FrameNames(pre, &f, tc.java, tc.o)
			if len(got2) != 1+len(tc.want) || got2[0] != "root" {
				t.Errorf("FrameNames(dst) = %q", got2)
			}
		})
	}
}

func TestCutArgs(t *testing.T) {
	tests := []struct{ in, want string }{
		{"main", "main"},
		{"std::function<int (int, int)>::operator()", "std::function<int (int, int)>::operator"},
		{"StealTask::do_it(GCTaskManager*, unsigned int)", "StealTask::do_it"},
		{"arrayOopDesc::base(BasicType) const", "arrayOopDesc::base"},
		{"JavaCalls::call_helper(JavaValue*, methodHandle*, JavaCallArguments*, Thread*)", "JavaCalls::call_helper"},
		{"go/build.(*importReader).readKeyword", "go/build.(*importReader).readKeyword"},
		{"net/http.(*Client).Do", "net/http.(*Client).Do"},
		{"ns::(anonymous namespace)::helper(int)", "ns::(anonymous namespace)::helper"},
		{"std::_Function_handler<int (int, int), main::{lambda(int, int)#1}>::_M_invoke(std::_Any_data const&, int&&, int&&)",
			"std::_Function_handler<int (int, int), main::{lambda(int, int)#1}>::_M_invoke"},
		{"(anonymous namespace)::f", "(anonymous namespace)::f"},
	}
	for _, tc := range tests {
		if got := cutArgs(tc.in); got != tc.want {
			t.Errorf("cutArgs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestFixRustSymbol(t *testing.T) {
	tests := []struct{ in, want string }{
		{"_$LT$term..terminfo..TerminfoTerminal$LT$T$GT$$GT$::new::hcd1c44cd143417f6", "<term::terminfo::TerminfoTerminal<T>>::new"},
		{"_$LT$collections..vec..Vec$LT$T$GT$$GT$::extend_with_element::hadc3afe1b04eb21a", "<collections::vec::Vec<T>>::extend_with_element"},
		{"_$LT$u8$u20$as$u20$core..clone..Clone$GT$::clone::h7bfab8630dda96cf", "<u8 as core::clone::Clone>::clone"},
		{"simplelog::termlog::TermLogger::new::h94d15a7bc0cbc21f", "simplelog::termlog::TermLogger::new"},
		{"foo$RF$$BP$bar$LP$$RP$$SP$::h0123456789abcdef", "foo&*bar()@"},
		// Not legacy Rust: left alone.
		{"Lsun/nio/cs/UTF_8$Encoder;::encodeLoop", "Lsun/nio/cs/UTF_8$Encoder;::encodeLoop"},
		{"f.isra.0", "f.isra.0"},
		{"main", "main"},
	}
	for _, tc := range tests {
		if got := fixRustSymbol(tc.in); got != tc.want {
			t.Errorf("fixRustSymbol(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
