package batch

import (
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/store"
)

// placeholders are the names a template may use.
var placeholders = map[string]bool{"stem": true, "name": true, "dir": true, "index": true}

var placeholderRE = regexp.MustCompile(`\{[^{}]*\}`)

// CheckTemplate reports a usage error when tmpl is not an output template:
// it must use {stem}, {name} or {index} (so that inputs get outputs of
// their own) and no other {...} than those and {dir}.
func CheckTemplate(tmpl string) error {
	if tmpl == "" || tmpl == "-" {
		return cliutil.Usagef("batch mode (--inputs) writes one output per input: give -o TEMPLATE, e.g. -o 'out/{stem}.warc.gz'")
	}
	own := false
	for _, m := range placeholderRE.FindAllString(tmpl, -1) {
		name := m[1 : len(m)-1]
		if !placeholders[name] {
			return cliutil.Usagef("-o %s: unknown placeholder %s (have {stem}, {name}, {dir}, {index})", tmpl, m)
		}
		if name != "dir" {
			own = true
		}
	}
	if !own {
		return cliutil.Usagef("-o %s: the template needs {stem}, {name} or {index}, or every input would write the same output", tmpl)
	}
	return nil
}

// Parts returns the template fields of an input name: its base name, stem
// and directory.
func Parts(input string) (name, stem, dir string) {
	p := input
	switch store.KindOf(input) {
	case store.S3:
		_, key, _ := strings.Cut(strings.TrimPrefix(input[strings.Index(input, "://")+3:], "/"), "/")
		p = key
	case store.HTTP:
		if u, err := url.Parse(input); err == nil {
			p = strings.TrimPrefix(u.Path, "/")
		}
	default:
		p = filepath.ToSlash(filepath.Clean(input))
		p = strings.TrimLeft(p, "/")
		if len(p) > 1 && p[1] == ':' { // C:/...
			p = strings.TrimLeft(p[2:], "/")
		}
	}
	name = path.Base(p)
	if name == "." || name == "/" {
		name = ""
	}
	dir = path.Dir(p)
	if dir == "." || dir == "/" {
		dir = ""
	}
	stem = name
	for _, z := range []string{".gz", ".zst", ".bz2", ".xz"} {
		if s, ok := strings.CutSuffix(stem, z); ok && s != "" {
			stem = s
			break
		}
	}
	if i := strings.LastIndexByte(stem, '.'); i > 0 {
		stem = stem[:i]
	}
	return name, stem, dir
}

// Render returns the output name of in under tmpl (checked with
// CheckTemplate).
func Render(tmpl string, in Input) (string, error) {
	name, stem, dir := Parts(in.Name)
	if name == "" {
		return "", fmt.Errorf("%s: no file name to name an output after", store.Redact(in.Name))
	}
	if dir == ".." || strings.HasPrefix(dir, "../") {
		return "", fmt.Errorf("%s: {dir} would leave the output's folder (%s)", in.Name, dir)
	}
	out := tmpl
	if dir == "" {
		out = strings.ReplaceAll(out, "{dir}/", "")
	}
	out = strings.NewReplacer("{dir}", dir, "{stem}", stem, "{name}", name,
		"{index}", fmt.Sprintf("%05d", in.Index)).Replace(out)
	return out, nil
}

// Outputs renders tmpl for every input of l and fails (usage error) when
// two inputs would get the same output: every task checks the whole list,
// so every task refuses the same list.
func Outputs(tmpl string, l *List) ([]string, error) {
	if err := CheckTemplate(tmpl); err != nil {
		return nil, err
	}
	outs := make([]string, len(l.Inputs))
	seen := make(map[string]int, len(l.Inputs))
	for i, in := range l.Inputs {
		o, err := Render(tmpl, in)
		if err != nil {
			return nil, cliutil.Usagef("%v", err)
		}
		if j, dup := seen[o]; dup {
			return nil, cliutil.Usagef("-o %s: inputs %s and %s would both write %s (use {dir} or {index})",
				tmpl, store.Redact(l.Inputs[j].Name), store.Redact(in.Name), store.Redact(o))
		}
		seen[o] = i
		outs[i] = o
	}
	return outs, nil
}

// Beside returns the name of the object sub/BASE.json beside output
// DIR/BASE: DIR/sub/BASE.json (sub is "_done" or "_errors").
func Beside(output, sub string) string {
	i := strings.LastIndexByte(output, '/')
	if store.KindOf(output) == store.Local {
		if j := strings.LastIndexByte(output, filepath.Separator); j > i {
			i = j
		}
	}
	return output[:i+1] + sub + "/" + output[i+1:] + ".json"
}
