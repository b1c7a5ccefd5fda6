package parse

import (
	"testing"
)

func TestReaderFrames(t *testing.T) {
	const hdr = "perf_stacks 20602  2217.581638:          1 cycles:uppp: \n"
	tests := []struct {
		name string
		line string
		want fr
	}{
		{"kernel frame with offset", "\tffffffff817cea2d ext4_file_mmap_prepare+0xd ([kernel.kallsyms])",
			fr{"ffffffff817cea2d", "ext4_file_mmap_prepare", "0xd", "[kernel.kallsyms]", false}},
		{"address 0, unknown/unknown", "\t               0 [unknown] ([unknown])",
			fr{"0", "[unknown]", "", "[unknown]", false}},
		{"symbol with @@ version", "\t           cf439 clock_gettime@@GLIBC_2.17+0x19 (/usr/lib/x86_64-linux-gnu/libc.so.6)",
			fr{"cf439", "clock_gettime@@GLIBC_2.17", "0x19", "/usr/lib/x86_64-linux-gnu/libc.so.6", false}},
		{"inlined pseudo-DSO", "\t    7f443cc8af43 __mmap64 (inlined)",
			fr{"7f443cc8af43", "__mmap64", "", "inlined", true}},
		{"symbol with spaces and parentheses", "\t    561aa58dc06e std::function<int (int, int)>::operator() (/home/user/genperf/perf_stacks)",
			fr{"561aa58dc06e", "std::function<int (int, int)>::operator()", "", "/home/user/genperf/perf_stacks", false}},
		{"lambda in template", "\t    561aa58dbcc3 std::_Function_handler<int (int, int), main::{lambda(int, int)#1}>::_M_invoke (/home/user/genperf/perf_stacks)",
			fr{"561aa58dbcc3", "std::_Function_handler<int (int, int), main::{lambda(int, int)#1}>::_M_invoke", "", "/home/user/genperf/perf_stacks", false}},
		{"C++ args and const", "\t7f7241fbe6d8 arrayOopDesc::base(BasicType) const (/home/xguan/opt/jdk1.8.0_112/jre/lib/amd64/server/libjvm.so)",
			fr{"7f7241fbe6d8", "arrayOopDesc::base(BasicType) const", "", "/home/xguan/opt/jdk1.8.0_112/jre/lib/amd64/server/libjvm.so", false}},
		{"Rust <X as Y>::f", "            56203912789e <alloc::boxed::Box<T> as gc::trace::Trace>::trace::mark+0xe (/workspaces/boa/target/debug/boa_cli)",
			fr{"56203912789e", "<alloc::boxed::Box<T> as gc::trace::Trace>::trace::mark", "0xe", "/workspaces/boa/target/debug/boa_cli", false}},
		{"Go method", "\t          5c7d23 cmd/go/internal/load.(*Package).load+0x2193 (/usr/lib/go/bin/go)",
			fr{"5c7d23", "cmd/go/internal/load.(*Package).load", "0x2193", "/usr/lib/go/bin/go", false}},
		{"deleted DSO with nested parens", "\t           c6a96 [unknown] (/memfd:sealed-91173221a7ea (deleted))",
			fr{"c6a96", "[unknown]", "", "/memfd:sealed-91173221a7ea (deleted)", false}},
		{"DSO with spaces", "\t    7f2c3c00a4f0 [unknown] ([JIT app cache])",
			fr{"7f2c3c00a4f0", "[unknown]", "", "[JIT app cache]", false}},
		{"no DSO", "\t    7f443cc6f090 _start",
			fr{"7f443cc6f090", "_start", "", "", false}},
		{"address only (-F ip)", "\t    7f443cc6f090",
			fr{"7f443cc6f090", "", "", "", false}},
		{"parens at end of symbol but no DSO", "\t    7f1e2130d999 GCTaskThread::run()",
			fr{"7f1e2130d999", "GCTaskThread::run()", "", "", false}},
		{"JIT symbol with spaces and offset", "\t        f719f06f <jit invoke stub>+0x27 (/tmp/jitted-31714-4145672264.so)",
			fr{"f719f06f", "<jit invoke stub>", "0x27", "/tmp/jitted-31714-4145672264.so", false}},
		{"node JIT name with spaces and colons", "\t     c6d7895aac9 LazyCompile:~body_0 evalmachine.<anonymous>:1 (/tmp/perf-31912.map)",
			fr{"c6d7895aac9", "LazyCompile:~body_0 evalmachine.<anonymous>:1", "", "/tmp/perf-31912.map", false}},
		{"Java inline chain with +0x0", "\t    7f89cc467bf0 Ljava/io/PrintStream;::println->Ljava/io/PrintStream;::print->Ljava/io/PrintStream;::write+0x0 (/tmp/perf-10487.map)",
			fr{"7f89cc467bf0", "Ljava/io/PrintStream;::println->Ljava/io/PrintStream;::print->Ljava/io/PrintStream;::write", "0x0", "/tmp/perf-10487.map", false}},
		{"huge Rust offset", "\t          38e1c0 _$LT$u8$u20$as$u20$core..clone..Clone$GT$::clone::h7bfab8630dda96cf+0xffff53cc2fce4010 (/home/yamakaky/dev/rust/dcpu/target/debug/emulator)",
			fr{"38e1c0", "_$LT$u8$u20$as$u20$core..clone..Clone$GT$::clone::h7bfab8630dda96cf", "0xffff53cc2fce4010", "/home/yamakaky/dev/rust/dcpu/target/debug/emulator", false}},
		{"trailing spaces after DSO", "\t            1205 spin_for+0x44 (/work/steering/lab/src/phases)   ",
			fr{"1205", "spin_for", "0x44", "/work/steering/lab/src/phases", false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := readAll(t, hdr+tc.line+"\n\n")
			if res.skipped != 0 {
				t.Errorf("Skipped() = %d, want 0", res.skipped)
			}
			want := sample(1, "perf_stacks", -1, 20602, -1, 2217581638000, 1, "cycles:uppp", tc.want)
			checkRecs(t, res.recs, []rec{want})
		})
	}
}
