package leash

import "testing"

func TestGlob(t *testing.T) {
	t.Parallel()
	cases := []struct {
		pat, name string
		want      bool
	}{
		{"/usr/**", "/usr/bin/git", true},
		{"/usr/**", "/usr", false},
		{"/usr/*", "/usr/lib/x/y.so", true}, // '*' crosses '/' too
		{"/usr/*", "/usrx", false},
		{"**/x", "/a/b/x", true},
		{"**/x", "/a/b/xy", false},
		{"*", "", true},
		{"*", "/any/thing", true},
		{"", "", true},
		{"", "a", false},
		{"a?c", "abc", true},
		{"a?c", "a/c", true},
		{"a?c", "ac", false},
		{"a?c", "aéc", true}, // one rune, not one byte
		{"[abc]x", "bx", true},
		{"[abc]x", "dx", false},
		{"[a-c]x", "cx", true},
		{"[!a-c]x", "dx", true},
		{"[^a-c]x", "ax", false},
		{"[]]", "]", true},
		{"[!]]", "a", true},
		{`\*`, "*", true},
		{`\*`, "a", false},
		{"*.githubusercontent.com", "raw.githubusercontent.com", true},
		{"*.githubusercontent.com", "githubusercontent.com", false},
		{"a*b*c", "axxbyyc", true},
		{"a*b*c", "axxbyy", false},
		{"*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false},
		// Invalid patterns never match, not even themselves.
		{"[abc", "[abc", false},
		{"[abc", "a", false},
		{"abc]", "abc]", false},
		{`abc\`, `abc\`, false},
		{"[z-a]", "m", false},
		{"[]", "[]", false},
	}
	for _, tc := range cases {
		if got := MatchGlob(tc.pat, tc.name); got != tc.want {
			t.Errorf("MatchGlob(%q, %q) = %v, want %v", tc.pat, tc.name, got, tc.want)
		}
	}
}

func TestGlobInvalidUTF8(t *testing.T) {
	t.Parallel()
	if _, err := CompileGlob("a\xffb"); err == nil {
		t.Error("invalid UTF-8 pattern compiled")
	}
	if MatchGlob("/home/*", "/home/\xff") {
		t.Error("name with invalid UTF-8 matched a non-star pattern")
	}
	if !MatchGlob("**", "/home/\xff") {
		t.Error(`"**" must match every name`)
	}
}

func TestGlobRoot(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"/home/u/x/**":  "/home/u/x",
		"/usr/bin/git":  "/usr/bin/git",
		"/**":           "/",
		"/":             "/",
		"/a/b*/c":       "/a",
		"/a/[bc]/d":     "/a",
		"**/x":          "",
		"rel/**":        "",
		"~/x/**":        "",
		"/a//b/./c/**":  "/a/b/c",
		"/a/b/../c/**":  "/a/c",
		"/etc/host?":    "/etc",
		`/a/\*/b`:       "/a",
		"/tmp/x/*.json": "/tmp/x",
	}
	for in, want := range cases {
		if got := GlobRoot(in); got != want {
			t.Errorf("GlobRoot(%q) = %q, want %q", in, got, want)
		}
	}
}
