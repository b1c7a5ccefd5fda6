package parse

import (
	"reflect"
	"strings"
	"testing"
)

// The line parser's record and the concurrent Reader's are used again from
// record to record: the first is cleared whole each time, the second only
// after a record that set a field the common records never set (a
// payload, a task's, a lost count, an error), batch.record setting or
// checking every other field. These tests set each field of Record in
// turn, so that a field added to Record later and not cleared fails them.

// recordFieldPaths lists the index paths of Record's fields, the embedded
// structs' fields in place of the structs.
func recordFieldPaths() [][]int {
	var paths [][]int
	var walk func(typ reflect.Type, path []int)
	walk = func(typ reflect.Type, path []int) {
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			p := append(append([]int(nil), path...), i)
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				walk(f.Type, p)
				continue
			}
			paths = append(paths, p)
		}
	}
	walk(reflect.TypeOf(Record{}), nil)
	return paths
}

// setRecordField sets rec's field at path to a value other than its zero:
// bytes from bytes, numbers n.
func setRecordField(t *testing.T, rec *Record, path []int, bytes []byte, n int) {
	t.Helper()
	f := reflect.ValueOf(rec).Elem().FieldByIndex(path)
	switch f.Kind() {
	case reflect.Bool:
		f.SetBool(true)
	case reflect.Int, reflect.Int64:
		f.SetInt(int64(n))
	case reflect.Uint8, reflect.Uint64:
		f.SetUint(uint64(n))
	case reflect.Slice:
		f.SetBytes(bytes)
	case reflect.Pointer:
		f.Set(reflect.New(f.Type().Elem()))
	default:
		t.Fatalf("Record field %v of kind %v: this test does not know how to set it", path, f.Kind())
	}
}

func recordFieldName(path []int) string { return reflect.TypeOf(Record{}).FieldByIndex(path).Name }

// TestHeaderClearsUsedRecord: whatever field the record before left set,
// the next record the line parser reads is what a fresh parser reads.
func TestHeaderClearsUsedRecord(t *testing.T) {
	in := "sh  947  947.705097:    1001001 cpu-clock: \n\t1205 spin_for+0x44 (/bin/phases)\n\n" +
		"sh  947  947.706689: PERF_RECORD_SWITCH OUT preempt\n" +
		"perf  6029 [000]   294.332875: PERF_RECORD_SWITCH_CPU_WIDE IN           prev pid/tid:     0/0    \n" +
		"x 9 300.0: PERF_RECORD_FORK(9:9):(1:1)\n" +
		"writers   31923 E      8521.008289: PERF_RECORD_COMM exec: writers:31923/31923\n" +
		"sh  947  947.707000:    1001001 cpu-clock: \n\t1205 spin_for+0x44 (/bin/phases)\n\n" +
		"sh  947  947.708000: 1 sched:sched_wakeup: comm=x pid=1 prio=120 target_cpu=000\n" +
		"sh  947  947.709000: PERF_RECORD_SWITCH IN\n" +
		"sh  947  947.710000: PERF_RECORD_MMAP2 947/947: [0x400000(0x1000) @ 0 08:01 12 0]: r-xp /bin/sh\n" +
		"perf  0 [000]   295.000000: PERF_RECORD_LOST lost 17\n" +
		"sh  947  947.711000: PERF_RECORD_SWITCH OUT\n"
	read := func(dirty func(*Record)) []Record {
		p := newLineParser(strings.NewReader(in), "in.txt")
		var recs []Record
		for p.scan() {
			r := p.rec
			r.Comm, r.Event, r.Payload, r.NewComm = clone(r.Comm), clone(r.Event), clone(r.Payload), clone(r.NewComm)
			recs = append(recs, r)
			dirty(&p.rec)
		}
		return recs
	}
	want := read(func(*Record) {})
	kinds := map[Kind]bool{}
	for _, r := range want {
		kinds[r.Kind] = true
	}
	if len(want) != 11 || len(kinds) != 7 || want[6].Payload == nil || want[9].Lost != 17 {
		t.Fatalf("read %d records of %d kinds, want 11 of 7 (the 7th with a payload, a LOST of 17 last but one): %+v", len(want), len(kinds), want)
	}
	for _, path := range recordFieldPaths() {
		got := read(func(r *Record) { setRecordField(t, r, path, []byte("dirty"), 7) })
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s left set by the record before: read\n%+v\nwant\n%+v", recordFieldName(path), got, want)
		}
	}
}

func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

// TestBatchRecordIntoUsedRecord: batch.record into a Record that holds
// any field set gives what it gives into a fresh one.
func TestBatchRecordIntoUsedRecord(t *testing.T) {
	b := newBatch()
	src := &lineParser{keep: true, arena: b.arena, refs: b.refs}
	src.rec = Record{Kind: KindSwitch, Line: 1, Comm: src.own([]byte("sh")), PID: 9, TID: 10, HasTID: true, CPU: 2,
		Time: 5, HasTime: true, SwitchFields: SwitchFields{Out: true, PeerPID: 3, PeerTID: 4}}
	src.lineNo = 1
	b.add(src, false)
	b.arena = src.arena
	if b.recs[0].wide != 0 {
		t.Fatal("the switch was kept whole; this test needs it packed")
	}
	var want Record
	b.record(0, &want)
	for _, path := range recordFieldPaths() {
		var got Record
		setRecordField(t, &got, path, []byte("dirty"), 7)
		if b.record(0, &got); !reflect.DeepEqual(got, want) {
			t.Errorf("%s set before: got %+v, want %+v", recordFieldName(path), got, want)
		}
	}
}
