package syntax

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestJSONRoundTripCorpus marshals every corpus program, decodes it and
// marshals again: the bytes must be identical and the decoded AST must
// dump like the original.
func TestJSONRoundTripCorpus(t *testing.T) {
	t.Parallel()
	n := 0
	for _, f := range loadCorpus(t) {
		for _, c := range f.Cases {
			prog, err := Parse(c.Src, nil)
			if err != nil {
				continue
			}
			n++
			roundTrip(t, c.Name, prog)
		}
	}
	for _, tc := range parseCases {
		prog, err := Parse(tc.src, boundOpts(tc.bound))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		roundTrip(t, tc.name, prog)
	}
	if n < 1000 {
		t.Errorf("round-tripped only %d corpus programs", n)
	}
}

func roundTrip(t *testing.T, name string, prog *Program) {
	t.Helper()
	data, err := MarshalProgram(prog)
	if err != nil {
		t.Fatalf("%s: marshal: %v", name, err)
	}
	if !json.Valid(data) {
		t.Fatalf("%s: invalid JSON %s", name, data)
	}
	back, err := UnmarshalProgram(data)
	if err != nil {
		t.Fatalf("%s: unmarshal: %v\n%s", name, err, data)
	}
	again, err := MarshalProgram(back)
	if err != nil {
		t.Fatalf("%s: re-marshal: %v", name, err)
	}
	if !bytes.Equal(data, again) {
		t.Fatalf("%s: round trip changed the JSON\n%s\n%s", name, data, again)
	}
	if dumpLoose(prog.Stmts) != dumpLoose(back.Stmts) || back.Src != prog.Src || back.S != prog.S {
		t.Fatalf("%s: decoded AST differs", name)
	}
}

func TestMarshalShape(t *testing.T) {
	t.Parallel()
	prog, err := Parse("let x = [1, 1e999]\necho hi --dry-run\nmatch 1 { int n => n }", nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := MarshalProgram(prog)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for _, want := range []string{
		`{"type":"Program","ast_version":2,"span":{"start":0,"end":59}`,
		`{"type":"Let","span":{"start":0,"end":18},"mutable":false,"name":"x","annotation":null,"value":{"type":"ListLit"`,
		`{"type":"IntLit","span":{"start":9,"end":10},"v":1}`,
		`"v":"inf"`,
		`{"type":"ExprStmt"`,
		`{"type":"Command"`,
		`{"type":"TypePat","span":{"start":47,"end":52},"type_name":"int","name":"n"}`,
		`{"type":"Flag","span":{"start":27,"end":36},"name":"dry_run","raw":"--dry-run","value":null,"short":false,"empty_eq":false}`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("JSON lacks %s\n%s", want, s)
		}
	}
}

func TestUnmarshalRejectsBadInput(t *testing.T) {
	t.Parallel()
	good, err := MarshalProgram(&Program{Stmts: []Stmt{&ExprStmt{X: &IntLit{V: 1}}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := UnmarshalProgram(good); err != nil {
		t.Fatalf("good input rejected: %v", err)
	}
	bad := map[string]string{
		"not json":           `{`,
		"not an object":      `[1]`,
		"null":               `null`,
		"wrong type":         `{"type":"Let","ast_version":2}`,
		"wrong version":      `{"type":"Program","ast_version":1,"span":{"start":0,"end":0},"stmts":[]}`,
		"unknown node":       `{"type":"Program","ast_version":2,"span":{"start":0,"end":0},"stmts":[{"type":"Nope","span":{"start":0,"end":0}}]}`,
		"expr as statement":  `{"type":"Program","ast_version":2,"span":{"start":0,"end":0},"stmts":[{"type":"IntLit","span":{"start":0,"end":0},"v":1}]}`,
		"stmt as expression": `{"type":"Program","ast_version":2,"span":{"start":0,"end":0},"stmts":[{"type":"ExprStmt","span":{"start":0,"end":0},"x":{"type":"Break","span":{"start":0,"end":0}}}]}`,
		"missing span":       `{"type":"Program","ast_version":2,"span":{"start":0,"end":0},"stmts":[{"type":"Break"}]}`,
		"bad field type":     `{"type":"Program","ast_version":2,"span":{"start":0,"end":0},"stmts":[{"type":"ExprStmt","span":{"start":0,"end":0},"x":{"type":"IntLit","span":{"start":0,"end":0},"v":"one"}}]}`,
		"missing field":      `{"type":"Program","ast_version":2,"span":{"start":0,"end":0},"stmts":[{"type":"ExprStmt","span":{"start":0,"end":0},"x":{"type":"IntLit","span":{"start":0,"end":0}}}]}`,
		"stmts not a list":   `{"type":"Program","ast_version":2,"span":{"start":0,"end":0},"stmts":{}}`,
		"bad float":          `{"type":"Program","ast_version":2,"span":{"start":0,"end":0},"stmts":[{"type":"ExprStmt","span":{"start":0,"end":0},"x":{"type":"FloatLit","span":{"start":0,"end":0},"v":"big"}}]}`,
	}
	for name, in := range bad {
		if _, err := UnmarshalProgram([]byte(in)); err == nil {
			t.Errorf("%s: UnmarshalProgram(%s) succeeded", name, in)
		}
	}
}

// FuzzUnmarshalProgram: arbitrary bytes never panic the decoder.
func FuzzUnmarshalProgram(f *testing.F) {
	for _, src := range []string{"let x = 1", "echo hi > f &", `match x { [a, ...r] => {b: "{a}"} }`} {
		prog, err := Parse(src, nil)
		if err != nil {
			f.Fatal(err)
		}
		data, err := MarshalProgram(prog)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		prog, err := UnmarshalProgram(data)
		if err == nil {
			if _, err := MarshalProgram(prog); err != nil {
				t.Fatalf("decoded program does not marshal: %v", err)
			}
		}
	})
}

// TestDocsExample pins the example in docs/ast.md.
func TestDocsExample(t *testing.T) {
	t.Parallel()
	prog, err := Parse("let n = 2kb", nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := MarshalProgram(prog)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"Program","ast_version":2,"span":{"start":0,"end":11},"src":"let n = 2kb","stmts":[` +
		`{"type":"Let","span":{"start":0,"end":11},"mutable":false,"name":"n","annotation":null,` +
		`"value":{"type":"SizeLit","span":{"start":8,"end":11},"bytes":2000}}]}`
	if string(data) != want {
		t.Errorf("MarshalProgram:\n%s\nwant:\n%s", data, want)
	}
}
