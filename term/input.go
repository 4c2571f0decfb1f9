package term

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
)

// Input is what [PTY.Send] writes: a sequence of literal byte runs and named keys. Keys
// stay names until the moment of sending, because their bytes depend on the cursor-key
// mode the program has set by then.
type Input []Part

// Part is one element of an [Input]: literal bytes, or a key name when Key is non-empty.
type Part struct {
	Bytes []byte
	Key   string
}

// Text returns an Input that sends s verbatim.
func Text(s string) Input { return Input{{Bytes: []byte(s)}} }

// Bytes returns an Input that sends b verbatim.
func Bytes(b []byte) Input { return Input{{Bytes: b}} }

// Keys returns an Input of named keys. Names are checked when sent; use
// [EncodeKey] or [ParseInput] to validate earlier.
func Keys(names ...string) Input {
	in := make(Input, len(names))
	for i, n := range names {
		in[i] = Part{Key: n}
	}
	return in
}

// Encode returns the bytes of in with keys encoded for the given cursor-key mode.
func (in Input) Encode(appCursor bool) ([]byte, error) {
	var buf bytes.Buffer
	for _, p := range in {
		if p.Key == "" {
			buf.Write(p.Bytes)
			continue
		}
		b, err := EncodeKey(p.Key, appCursor)
		if err != nil {
			return nil, err
		}
		buf.Write(b)
	}
	return buf.Bytes(), nil
}

// InputError reports a pty.send input that is not one of the accepted shapes.
type InputError struct {
	Reason string
}

func (e *InputError) Error() string { return "bad pty input: " + e.Reason }

// Unwrap lets callers test for [ErrInvalidInput].
func (e *InputError) Unwrap() error { return ErrInvalidInput }

// ParseInput decodes the wire form of pty.send's input: a JSON string (sent as UTF-8),
// {"text":s}, {"key":NAME}, {"bytes":base64}, or an array of these, concatenated.
// Arrays do not nest. Key names are validated here, so an unknown key is reported
// before anything is written. Errors wrap [ErrInvalidInput].
func ParseInput(raw []byte) (Input, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, &InputError{Reason: err.Error()}
		}
		var in Input
		for i, item := range items {
			p, err := parsePart(item)
			if err != nil {
				return nil, fmt.Errorf("item %d: %w", i, err)
			}
			in = append(in, p)
		}
		return in, nil
	}
	p, err := parsePart(raw)
	if err != nil {
		return nil, err
	}
	return Input{p}, nil
}

func parsePart(raw json.RawMessage) (Part, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return Part{}, &InputError{Reason: "missing input"}
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return Part{}, &InputError{Reason: err.Error()}
		}
		return Part{Bytes: []byte(s)}, nil
	case '{':
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			return Part{}, &InputError{Reason: err.Error()}
		}
		if len(obj) != 1 {
			return Part{}, &InputError{Reason: `object needs exactly one of "text", "key", "bytes"`}
		}
		for k, v := range obj {
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				return Part{}, &InputError{Reason: fmt.Sprintf("%q must be a string", k)}
			}
			switch k {
			case "text":
				return Part{Bytes: []byte(s)}, nil
			case "key":
				if _, err := EncodeKey(s, false); err != nil {
					return Part{}, err
				}
				return Part{Key: s}, nil
			case "bytes":
				b, err := base64.StdEncoding.DecodeString(s)
				if err != nil {
					return Part{}, &InputError{Reason: "bad base64: " + err.Error()}
				}
				return Part{Bytes: b}, nil
			default:
				return Part{}, &InputError{Reason: fmt.Sprintf("unknown field %q", k)}
			}
		}
	}
	return Part{}, &InputError{Reason: "input must be a string, an object or an array of these"}
}
