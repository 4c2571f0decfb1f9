package journal

import (
	"encoding/binary"
	"errors"
)

// The redo payload is a small binary encoding: JSON took a third of the kernel's CPU on an
// exec of `1 + 2` (mostly re-validating the AST and payload JSON it embeds). Integers are
// varints, strings and byte strings are length-prefixed, optional values carry a presence
// byte. The first byte is the format version.
const redoFormat = 1

const (
	hasBegin = 1 << iota
	hasFinish
	hasEvents
	hasBlobs // added later: records without it read as before
)

type encoder struct{ b []byte }

func (e *encoder) int(v int64)    { e.b = binary.AppendVarint(e.b, v) }
func (e *encoder) uint(v uint64)  { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) str(s string)   { e.uint(uint64(len(s))); e.b = append(e.b, s...) }
func (e *encoder) bytes(p []byte) { e.uint(uint64(len(p))); e.b = append(e.b, p...) }
func (e *encoder) bool(v bool)    { e.b = append(e.b, b2u(v)) }
func (e *encoder) optBytes(p []byte) {
	if p == nil {
		e.uint(0)
		return
	}
	e.uint(uint64(len(p)) + 1)
	e.b = append(e.b, p...)
}

func b2u(v bool) byte {
	if v {
		return 1
	}
	return 0
}

func (r *redoRecord) appendPayload(buf []byte) []byte {
	e := &encoder{b: buf}
	e.b = append(e.b, redoFormat)
	e.int(r.LSN)
	var flags byte
	if r.Begin != nil {
		flags |= hasBegin
	}
	if r.Finish != nil {
		flags |= hasFinish
	}
	if len(r.Events) > 0 {
		flags |= hasEvents
	}
	if len(r.Blobs) > 0 {
		flags |= hasBlobs
	}
	e.b = append(e.b, flags)
	if b := r.Begin; b != nil {
		e.int(b.ID)
		e.str(b.Kind)
		e.int(b.ParentID)
		e.str(b.Session)
		e.str(b.Principal)
		e.int(b.TS)
		e.bytes(b.Cwd)
		e.str(b.EnvHash)
		e.str(b.Src)
		e.str(b.Head)
		e.str(b.AST)
		e.str(b.Effects)
	}
	if f := r.Finish; f != nil {
		e.int(r.ID)
		e.int(f.DurNs)
		e.bool(f.Status != nil)
		if f.Status != nil {
			e.int(int64(*f.Status))
		}
		e.bool(f.OK)
		e.bool(f.Opaque)
		e.optBytes(f.Meta)
		e.uint(uint64(len(f.Outputs)))
		for _, o := range f.Outputs {
			e.str(o.Kind)
			e.str(o.Hash)
			e.int(o.Len)
			e.optBytes(o.Meta)
		}
	}
	if len(r.Events) > 0 {
		e.uint(uint64(len(r.Events)))
		for _, ev := range r.Events {
			e.str(ev.Channel)
			e.int(ev.Seq)
			e.int(ev.EntryID)
			e.int(ev.TS)
			e.bytes(ev.Payload)
		}
	}
	if len(r.Blobs) > 0 {
		e.uint(uint64(len(r.Blobs)))
		for _, b := range r.Blobs {
			e.str(b.Hash)
			e.bytes(b.Data)
		}
	}
	return e.b
}

var errBadRecord = errors.New("malformed redo record")

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail() { d.err, d.b = errBadRecord, nil }

func (d *decoder) int() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) uint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.fail()
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) bool() bool { return d.byte() == 1 }

func (d *decoder) take(n uint64) []byte {
	if n > uint64(len(d.b)) {
		d.fail()
		return nil
	}
	p := d.b[:n:n]
	d.b = d.b[n:]
	return p
}

func (d *decoder) str() string   { return string(d.take(d.uint())) }
func (d *decoder) bytes() []byte { return append([]byte{}, d.take(d.uint())...) }

func (d *decoder) optBytes() []byte {
	n := d.uint()
	if n == 0 || d.err != nil {
		return nil
	}
	return append([]byte{}, d.take(n-1)...)
}

// count reads a list length, refusing one longer than the bytes left could hold (each
// element takes at least one byte), so a damaged length cannot make a huge allocation.
func (d *decoder) count() int {
	n := d.uint()
	if n > uint64(len(d.b)) {
		d.fail()
		return 0
	}
	return int(n)
}

func decodePayload(p []byte) (*redoRecord, error) {
	d := &decoder{b: p}
	if d.byte() != redoFormat {
		return nil, errBadRecord
	}
	r := &redoRecord{LSN: d.int()}
	flags := d.byte()
	if flags&hasBegin != 0 {
		b := &redoBegin{}
		b.ID = d.int()
		b.Kind = d.str()
		b.ParentID = d.int()
		b.Session = d.str()
		b.Principal = d.str()
		b.TS = d.int()
		b.Cwd = d.bytes()
		b.EnvHash = d.str()
		b.Src = d.str()
		b.Head = d.str()
		b.AST = d.str()
		b.Effects = d.str()
		r.Begin = b
	}
	if flags&hasFinish != 0 {
		f := &ExecFinish{}
		r.ID = d.int()
		f.DurNs = d.int()
		if d.bool() {
			st := int(d.int())
			f.Status = &st
		}
		f.OK = d.bool()
		f.Opaque = d.bool()
		f.Meta = d.optBytes()
		n := d.count()
		for range n {
			o := Output{Kind: d.str(), Hash: d.str(), Len: d.int()}
			o.Meta = d.optBytes()
			f.Outputs = append(f.Outputs, o)
		}
		r.Finish = f
	}
	if flags&hasEvents != 0 {
		n := d.count()
		for range n {
			ev := redoEvent{Channel: d.str(), Seq: d.int(), EntryID: d.int(), TS: d.int()}
			ev.Payload = d.bytes()
			r.Events = append(r.Events, ev)
		}
	}
	if flags&hasBlobs != 0 {
		n := d.count()
		for range n {
			r.Blobs = append(r.Blobs, redoBlob{Hash: d.str(), Data: d.bytes()})
		}
	}
	if d.err != nil || len(d.b) != 0 || r.LSN <= 0 {
		return nil, errBadRecord
	}
	return r, nil
}
