package mcp

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/shoal-sh/shoal/kernel/jsonrpc"
)

// schema is the subset of JSON Schema our literal tool schemas use. It is
// parsed from the same literal text that tools/list advertises, so what we
// validate is exactly what clients see.
type schema struct {
	Type                 string             `json:"type"`
	Required             []string           `json:"required"`
	Properties           map[string]*schema `json:"properties"`
	AdditionalProperties json.RawMessage    `json:"additionalProperties"`
	Enum                 []json.RawMessage  `json:"enum"`
	Minimum              *float64           `json:"minimum"`
	Maximum              *float64           `json:"maximum"`
	Items                *schema            `json:"items"`
	MinItems             *int               `json:"minItems"`
	MaxItems             *int               `json:"maxItems"`
}

func mustSchema(literal string) *schema {
	var s schema
	if err := json.Unmarshal([]byte(literal), &s); err != nil {
		panic(fmt.Sprintf("mcp: bad literal schema: %v", err)) // a broken invariant of this package
	}
	return &s
}

// validate checks v (decoded with UseNumber) against s; path names the
// location for the error message.
func (s *schema) validate(v any, path string) error {
	if len(s.Enum) > 0 {
		b, _ := json.Marshal(v)
		for _, e := range s.Enum {
			if string(e) == string(b) {
				return nil
			}
		}
		opts := make([]string, len(s.Enum))
		for i, e := range s.Enum {
			opts[i] = string(e)
		}
		return fmt.Errorf("%s must be one of %s", path, strings.Join(opts, ", "))
	}
	switch s.Type {
	case "":
		return nil
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s must be an object", path)
		}
		for _, r := range s.Required {
			if _, ok := obj[r]; !ok {
				return fmt.Errorf("%s.%s is required", path, r)
			}
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			sub, ok := s.Properties[k]
			if !ok {
				switch strings.TrimSpace(string(s.AdditionalProperties)) {
				case "false":
					return fmt.Errorf("%s has unknown property %q", path, k)
				case "", "true":
					continue
				}
				var extra schema
				if err := json.Unmarshal(s.AdditionalProperties, &extra); err != nil {
					return nil
				}
				sub = &extra
			}
			if err := sub.validate(obj[k], path+"."+k); err != nil {
				return err
			}
		}
	case "string":
		if _, ok := v.(string); !ok {
			return fmt.Errorf("%s must be a string", path)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("%s must be a boolean", path)
		}
	case "integer", "number":
		n, ok := v.(json.Number)
		if !ok {
			return fmt.Errorf("%s must be a number", path)
		}
		f, err := n.Float64()
		if err != nil {
			return fmt.Errorf("%s must be a number", path)
		}
		if s.Type == "integer" && f != math.Trunc(f) {
			return fmt.Errorf("%s must be an integer", path)
		}
		if s.Minimum != nil && f < *s.Minimum {
			return fmt.Errorf("%s must be ≥ %v", path, *s.Minimum)
		}
		if s.Maximum != nil && f > *s.Maximum {
			return fmt.Errorf("%s must be ≤ %v", path, *s.Maximum)
		}
	case "array":
		arr, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s must be an array", path)
		}
		if s.MinItems != nil && len(arr) < *s.MinItems {
			return fmt.Errorf("%s needs at least %d items", path, *s.MinItems)
		}
		if s.MaxItems != nil && len(arr) > *s.MaxItems {
			return fmt.Errorf("%s takes at most %d items", path, *s.MaxItems)
		}
		if s.Items != nil {
			for i, it := range arr {
				if err := s.Items.validate(it, fmt.Sprintf("%s[%d]", path, i)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// decodeArgs decodes tool arguments keeping numbers exact (as json.Number).
func decodeArgs(raw json.RawMessage) (any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return map[string]any{}, nil
	}
	return jsonrpc.DecodeAny(raw)
}
