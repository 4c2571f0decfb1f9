package lib

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/value"
)

// yaml.parse and yaml.stringify (§10) cover the YAML that configuration
// files use, with no dependency: block mappings and sequences, flow
// [a, b] and {k: v}, plain, single- and double-quoted scalars typed by
// the YAML 1.2 core schema, comments, and | / > block scalars. Anchors,
// aliases, tags, complex keys and multiple documents are refused with an
// arg_error rather than misread.

func yamlParse(c *call) (value.Value, error) {
	s, err := textArg(c)
	if err != nil {
		return nil, err
	}
	x, err := parseYAML(s)
	if err != nil {
		return nil, err
	}
	return value.FromOrdered(x)
}

// yamlError is the arg_error of malformed YAML, with a 1-based line.
func yamlError(line int, format string, args ...any) error {
	return diag.New(diag.ArgError, "invalid YAML at line %d: %s", line+1, fmt.Sprintf(format, args...))
}

// maxYAMLDepth bounds nesting so hostile input cannot exhaust the stack.
const maxYAMLDepth = 500

type yamlParser struct {
	lines []string
	i     int
	depth int
}

// parseYAML parses one document into the ordered form of lang/value.
func parseYAML(src string) (any, error) {
	if !utf8.ValidString(src) {
		return nil, diag.New(diag.ArgError, "invalid YAML: not UTF-8")
	}
	src = strings.ReplaceAll(src, "\r\n", "\n")
	// A final newline ends the last line; it does not start another.
	src = strings.TrimSuffix(src, "\n")
	p := &yamlParser{lines: strings.Split(src, "\n")}
	// Directives and the document start marker.
	for {
		if err := p.skipBlank(); err != nil {
			return nil, err
		}
		if p.eof() {
			return nil, nil
		}
		t := p.text()
		if strings.HasPrefix(p.lines[p.i], "%") {
			p.i++
			continue
		}
		if t == "---" {
			p.i++
			continue
		}
		if rest, ok := strings.CutPrefix(t, "--- "); ok && p.indent() == 0 {
			// Content on the marker line: parse it as the document.
			p.lines[p.i] = "    " + rest
		}
		break
	}
	if p.eof() {
		return nil, nil
	}
	x, err := p.block(p.indent(), -1)
	if err != nil {
		return nil, err
	}
	if err := p.skipBlank(); err != nil {
		return nil, err
	}
	if !p.eof() {
		t := p.text()
		switch {
		case t == "...":
			p.i++
			if err := p.skipBlank(); err != nil {
				return nil, err
			}
			if !p.eof() {
				return nil, yamlError(p.i, "multiple documents are not supported")
			}
		case t == "---" || strings.HasPrefix(t, "--- "):
			return nil, yamlError(p.i, "multiple documents are not supported")
		default:
			return nil, yamlError(p.i, "unexpected content %q", t)
		}
	}
	return x, nil
}

func (p *yamlParser) eof() bool { return p.i >= len(p.lines) }

// indent is the current line's indentation in spaces.
func (p *yamlParser) indent() int {
	l := p.lines[p.i]
	return len(l) - len(strings.TrimLeft(l, " "))
}

// text is the current line without indentation and comment.
func (p *yamlParser) text() string {
	return strings.TrimSpace(stripComment(p.lines[p.i]))
}

// skipBlank moves past blank and comment-only lines; a tab in the
// indentation of a content line is an error (YAML forbids it).
func (p *yamlParser) skipBlank() error {
	for !p.eof() {
		l := p.lines[p.i]
		if strings.TrimSpace(stripComment(l)) != "" {
			lead := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
			if strings.Contains(lead, "\t") {
				return yamlError(p.i, "tabs are not allowed in indentation")
			}
			return nil
		}
		p.i++
	}
	return nil
}

// stripComment removes a # comment: one at the start of the text or
// after whitespace, outside quotes.
func stripComment(l string) string {
	var quote byte
	for i := 0; i < len(l); i++ {
		ch := l[i]
		switch {
		case quote == '"':
			if ch == '\\' {
				i++
			} else if ch == '"' {
				quote = 0
			}
		case quote == '\'':
			if ch == '\'' {
				quote = 0
			}
		case ch == '"' || ch == '\'':
			// A quote opens a quoted scalar only at the start of a token.
			if i == 0 || strings.IndexByte(" \t[{,:-?", l[i-1]) >= 0 {
				quote = ch
			}
		case ch == '#':
			if i == 0 || l[i-1] == ' ' || l[i-1] == '\t' {
				return l[:i]
			}
		}
	}
	return l
}

func isSeqEntry(t string) bool { return t == "-" || strings.HasPrefix(t, "- ") }

// block parses the node starting at the current line, whose indentation
// is ind; continuation lines of a scalar must be indented deeper than
// parent.
func (p *yamlParser) block(ind, parent int) (any, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxYAMLDepth {
		return nil, yamlError(p.i, "nesting is too deep")
	}
	t := p.text()
	switch {
	case isSeqEntry(t):
		return p.sequence(ind)
	case isMappingLine(t):
		return p.mapping(ind)
	}
	return p.inlineValue(t, parent)
}

func (p *yamlParser) sequence(ind int) (any, error) {
	items := []any{}
	for {
		if err := p.skipBlank(); err != nil {
			return nil, err
		}
		if p.eof() {
			break
		}
		m := p.indent()
		if m < ind {
			break
		}
		if m > ind {
			return nil, yamlError(p.i, "bad indentation of a sequence entry")
		}
		t := p.text()
		if !isSeqEntry(t) {
			break
		}
		raw := p.lines[p.i]
		after := raw[ind+1:]
		rest := strings.TrimLeft(after, " ")
		if strings.TrimSpace(stripComment(rest)) == "" {
			// "-" alone: the item is on the following, deeper lines.
			p.i++
			if err := p.skipBlank(); err != nil {
				return nil, err
			}
			if p.eof() || p.indent() <= ind {
				items = append(items, nil)
				continue
			}
			x, err := p.block(p.indent(), ind)
			if err != nil {
				return nil, err
			}
			items = append(items, x)
			continue
		}
		// "- rest": rest is a node at its own column, so "- a: 1" opens a
		// mapping whose later keys align under "a".
		col := ind + 1 + len(after) - len(rest)
		p.lines[p.i] = strings.Repeat(" ", col) + rest
		x, err := p.block(col, ind)
		if err != nil {
			return nil, err
		}
		items = append(items, x)
	}
	return items, nil
}

// isMappingLine reports whether t starts with `key:` (followed by a space
// or the end of the line).
func isMappingLine(t string) bool {
	_, _, ok := splitKey(t)
	return ok
}

// splitKey splits `key: rest`. A flow collection or a line that merely
// contains a colon inside a word is not a key.
func splitKey(t string) (key, rest string, ok bool) {
	if t == "" || strings.IndexByte("[{", t[0]) >= 0 {
		return "", "", false
	}
	if t[0] == '"' || t[0] == '\'' {
		s, n, err := quoted(t)
		if err != nil {
			return "", "", false
		}
		after := strings.TrimLeft(t[n:], " ")
		if after == ":" || strings.HasPrefix(after, ": ") {
			return s, strings.TrimSpace(after[1:]), true
		}
		return "", "", false
	}
	for i := 0; i < len(t); i++ {
		if t[i] == ':' && (i+1 == len(t) || t[i+1] == ' ') {
			return strings.TrimSpace(t[:i]), strings.TrimSpace(t[i+1:]), true
		}
	}
	return "", "", false
}

func (p *yamlParser) mapping(ind int) (any, error) {
	out := value.Ordered{}
	for {
		if err := p.skipBlank(); err != nil {
			return nil, err
		}
		if p.eof() {
			break
		}
		m := p.indent()
		if m < ind {
			break
		}
		if m > ind {
			return nil, yamlError(p.i, "bad indentation of a mapping entry")
		}
		t := p.text()
		if strings.HasPrefix(t, "? ") || t == "?" {
			return nil, yamlError(p.i, "complex keys are not supported")
		}
		key, rest, ok := splitKey(t)
		if !ok {
			if isSeqEntry(t) {
				break
			}
			return nil, yamlError(p.i, "expected `key: value`, found %q", t)
		}
		if strings.IndexByte("&*!", t[0]) >= 0 {
			return nil, yamlError(p.i, "anchors, aliases and tags are not supported")
		}
		line := p.i
		var x any
		var err error
		if rest == "" {
			p.i++
			if err := p.skipBlank(); err != nil {
				return nil, err
			}
			switch {
			case p.eof():
			case p.indent() > ind:
				x, err = p.block(p.indent(), ind)
			case p.indent() == ind && isSeqEntry(p.text()):
				// A sequence may sit at its key's indentation.
				x, err = p.sequence(ind)
			}
		} else {
			// The value starts on this line, after the key.
			x, err = p.valueAfterKey(line, rest, ind)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, value.Pair{Key: key, Val: x})
	}
	return out, nil
}

// valueAfterKey parses the value written on a key's line: a block scalar
// header, a flow collection or a scalar.
func (p *yamlParser) valueAfterKey(line int, rest string, ind int) (any, error) {
	if rest[0] == '|' || rest[0] == '>' {
		p.i++
		return p.blockScalar(line, rest, ind)
	}
	return p.inlineValue(rest, ind)
}

// inlineValue parses a scalar or flow collection that starts in t (the
// current line's text) and may continue on deeper lines; it consumes
// those lines.
func (p *yamlParser) inlineValue(t string, parent int) (any, error) {
	line := p.i
	p.i++
	switch t[0] {
	case '[', '{':
		text, err := p.gatherFlow(line, t)
		if err != nil {
			return nil, err
		}
		fp := &flowParser{s: text, line: line}
		x, err := fp.value(0)
		if err != nil {
			return nil, err
		}
		fp.ws()
		if fp.pos < len(fp.s) {
			return nil, yamlError(line, "unexpected %q after a flow collection", fp.s[fp.pos:])
		}
		return x, nil
	case '"', '\'':
		return p.quotedValue(line, t)
	case '&', '*', '!':
		return nil, yamlError(line, "anchors, aliases and tags are not supported")
	case '@', '`', '%':
		return nil, yamlError(line, "%q cannot start a plain scalar", t[0])
	}
	if t == "-" || strings.HasPrefix(t, "- ") {
		return nil, yamlError(line, "a sequence cannot start here")
	}
	// A plain scalar continues on deeper lines, folded with spaces; an
	// empty line in between is a newline.
	var b strings.Builder
	b.WriteString(t)
	breaks := 0
	for !p.eof() {
		l := stripComment(p.lines[p.i])
		if strings.TrimSpace(l) == "" {
			breaks++
			p.i++
			continue
		}
		if p.indent() <= parent {
			break
		}
		next := strings.TrimSpace(l)
		if isMappingLine(next) && parent >= 0 {
			return nil, yamlError(p.i, "mapping values are not allowed here")
		}
		if breaks > 0 {
			b.WriteString(strings.Repeat("\n", breaks))
		} else {
			b.WriteByte(' ')
		}
		breaks = 0
		b.WriteString(next)
		p.i++
	}
	// Blank lines after the scalar belong to whatever follows.
	p.i -= breaks
	if b.Len() != len(t) {
		return b.String(), nil
	}
	return plainScalar(t), nil
}

// gatherFlow joins the lines of a flow collection until its brackets
// balance. The scan is incremental, so a long unclosed collection costs
// linear time.
func (p *yamlParser) gatherFlow(line int, t string) (string, error) {
	var fs flowScan
	fs.feed(t)
	var b strings.Builder
	b.WriteString(t)
	for !fs.balanced() {
		if p.eof() {
			return "", yamlError(line, "unclosed flow collection")
		}
		next := " " + strings.TrimSpace(stripComment(p.lines[p.i]))
		fs.feed(next)
		b.WriteString(next)
		p.i++
	}
	return b.String(), nil
}

// flowScan tracks bracket depth and quoting across the pieces of a flow
// collection.
type flowScan struct {
	depth  int
	quote  byte
	escape bool
}

func (f *flowScan) balanced() bool { return f.depth <= 0 && f.quote == 0 }

func (f *flowScan) feed(t string) {
	for i := 0; i < len(t); i++ {
		ch := t[i]
		switch {
		case f.escape:
			f.escape = false
		case f.quote == '"':
			if ch == '\\' {
				f.escape = true
			} else if ch == '"' {
				f.quote = 0
			}
		case f.quote == '\'':
			if ch == '\'' {
				f.quote = 0
			}
		case ch == '"' || ch == '\'':
			f.quote = ch
		case ch == '[' || ch == '{':
			f.depth++
		case ch == ']' || ch == '}':
			f.depth--
		}
	}
}

// quotedValue parses a quoted scalar starting in t, which may continue on
// the following lines (joined with spaces). The remaining lines are
// joined once and decoded once, so an unterminated quote costs linear
// time; the parser then resumes after the line where the scalar ended.
func (p *yamlParser) quotedValue(line int, t string) (any, error) {
	ends := []int{len(t)} // end offset of each joined line
	var b strings.Builder
	b.WriteString(t)
	if _, _, err := quoted(t); err != nil {
		for j := p.i; j < len(p.lines); j++ {
			b.WriteByte(' ')
			b.WriteString(strings.TrimSpace(p.lines[j]))
			ends = append(ends, b.Len())
		}
	}
	all := b.String()
	s, n, err := quoted(all)
	if err != nil {
		if d := diag.As(err); d == errBadEscape {
			return nil, yamlError(line, "invalid escape in a double-quoted scalar")
		}
		return nil, yamlError(line, "unterminated quoted scalar")
	}
	k := 0
	for ends[k] < n {
		k++
	}
	p.i += k
	if rest := strings.TrimSpace(stripComment(all[n:ends[k]])); rest != "" {
		return nil, yamlError(line+k, "unexpected %q after a quoted scalar", rest)
	}
	return s, nil
}

// blockScalar reads the lines of a | or > scalar whose header is h.
func (p *yamlParser) blockScalar(line int, h string, ind int) (any, error) {
	folded := h[0] == '>'
	chomp := byte(0)
	explicit := 0
	for _, ch := range strings.TrimSpace(stripComment(h[1:])) {
		switch {
		case (ch == '-' || ch == '+') && chomp == 0:
			chomp = byte(ch)
		case ch >= '1' && ch <= '9' && explicit == 0:
			explicit = int(ch - '0')
		default:
			return nil, yamlError(line, "invalid block scalar header %q", h)
		}
	}
	content := -1
	if explicit > 0 {
		content = max(ind, 0) + explicit
	}
	var lines []string
	for !p.eof() {
		l := p.lines[p.i]
		if strings.TrimSpace(l) == "" {
			lines = append(lines, "")
			p.i++
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " "))
		if content < 0 {
			if n <= ind {
				break
			}
			content = n
		}
		if n < content {
			break
		}
		lines = append(lines, l[content:])
		p.i++
	}
	// Trailing blank lines are chomped; remember how many for keep (+).
	trailing := 0
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
		trailing++
	}
	var b strings.Builder
	for i, l := range lines {
		if i == 0 {
			b.WriteString(l)
			continue
		}
		prev := lines[i-1]
		more := func(s string) bool { return s != "" && (s[0] == ' ' || s[0] == '\t') }
		switch {
		case !folded:
			b.WriteByte('\n')
		case l == "":
			b.WriteByte('\n')
		case prev == "":
			// The break before the empty lines was folded away.
		case more(prev) || more(l):
			b.WriteByte('\n')
		default:
			b.WriteByte(' ')
		}
		b.WriteString(l)
	}
	s := b.String()
	if len(lines) > 0 {
		switch chomp {
		case '-':
		case '+':
			s += "\n" + strings.Repeat("\n", trailing)
		default:
			s += "\n"
		}
	}
	return s, nil
}
