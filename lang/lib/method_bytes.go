package lib

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/value"
)

// Bytes methods (LANGUAGE.md §8.4). Bytes are not a sequence: first,
// contains, upper, reverse… are rejected in Method.

// bytesData returns b's content, loading lazily stored bytes.
func bytesData(ctx context.Context, b *value.Bytes) ([]byte, error) {
	if b.Data != nil || b.Load == nil {
		return b.Data, nil
	}
	data, err := b.Load(ctx)
	if err != nil {
		return nil, diag.New(diag.IOError, "cannot load %s: %v", b.Ref, err)
	}
	return data, nil
}

func bytesLen(c *call) (value.Value, error) {
	if err := c.noArgs(); err != nil {
		return nil, err
	}
	return value.Int(c.recv.(*value.Bytes).Length()), nil
}

func bytesIsEmpty(c *call) (value.Value, error) {
	if err := c.noArgs(); err != nil {
		return nil, err
	}
	return value.Bool(c.recv.(*value.Bytes).Length() == 0), nil
}

// bytesRef is the content reference of lazily stored bytes, or null.
func bytesRef(c *call) (value.Value, error) {
	if err := c.noArgs(); err != nil {
		return nil, err
	}
	if b := c.recv.(*value.Bytes); b.Ref != "" {
		return value.Str(b.Ref), nil
	}
	return value.Null{}, nil
}

// bytesLoad returns the bytes with their content in memory.
func bytesLoad(c *call) (value.Value, error) {
	if err := c.noArgs(); err != nil {
		return nil, err
	}
	b := c.recv.(*value.Bytes)
	data, err := bytesData(c.ctx, b)
	if err != nil {
		return nil, err
	}
	return &value.Bytes{Data: data}, nil
}

// lossy decodes UTF-8, replacing each invalid byte with U+FFFD.
func lossy(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n <= 1 {
			sb.WriteRune(utf8.RuneError)
			b = b[1:]
			continue
		}
		sb.Write(b[:n])
		b = b[n:]
	}
	return sb.String()
}
