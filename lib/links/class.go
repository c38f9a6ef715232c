package links

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
)

// Constant pool tags (JVM specification 4.4; chapter 4.2.3, Table 4.1, and
// the later additions 15-20 so that modern class files parse too).
const (
	constUtf8               = 1
	constInteger            = 3
	constFloat              = 4
	constLong               = 5
	constDouble             = 6
	constClass              = 7
	constString             = 8
	constFieldref           = 9
	constMethodref          = 10
	constInterfaceMethodref = 11
	constNameAndType        = 12
	constMethodHandle       = 15
	constMethodType         = 16
	constDynamic            = 17
	constInvokeDynamic      = 18
	constModule             = 19
	constPackage            = 20
)

// ErrNotClass is wrapped by the error returned for input that does not start
// with the 0xCAFEBABE magic.
var ErrNotClass = errors.New("not a Java class file")

// maxClassString bounds the CONSTANT_Utf8 strings kept while walking the
// pool; longer strings are read through and cannot be links.
const maxClassString = 1024

// systemPackages are class name prefixes provided by the Java runtime or the
// browser, never fetched from the codebase.
var systemPackages = []string{"java/", "javax/", "sun/", "com/sun/", "jdk/", "netscape/", "org/w3c/", "org/xml/", "org/omg/", "org/ietf/"}

// Class reports the links of a Java class file read from r (chapter 4.2.3):
// CONSTANT_Utf8 strings that look like URLs (LooksLikeURL) and the classes
// named by CONSTANT_Class entries outside the Java runtime (as "pkg/Name.class"),
// resolved against codebase (the applet codebase, or the class's own
// directory). Links are Embedded or follow their extension, Syntax
// SyntaxClass (never rewritten: the class is stored untouched), Start/End
// the span of the string in the file, Tag "class", Attr "string" or
// "class". Only the header and the constant pool are read; every length and
// index is checked, and errors name the byte offset.
func Class(r io.Reader, codebase *url.URL, f Func) error {
	br := bufio.NewReaderSize(r, 16<<10)
	off := int64(0)
	read := func(b []byte) error {
		n, err := io.ReadFull(br, b)
		off += int64(n)
		if err != nil {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				return fmt.Errorf("class file: offset %d: truncated", off)
			}
			return fmt.Errorf("class file: offset %d: %w", off, err)
		}
		return nil
	}
	var hdr [10]byte
	if err := read(hdr[:]); err != nil {
		return err
	}
	if binary.BigEndian.Uint32(hdr[:4]) != 0xCAFEBABE {
		return fmt.Errorf("class file: offset 0: %w (magic %x)", ErrNotClass, hdr[:4])
	}
	count := int(binary.BigEndian.Uint16(hdr[8:10]))
	type utf8Const struct {
		s   string
		off int64
	}
	strs := map[int]utf8Const{}
	var classRefs []int // name_index of CONSTANT_Class, in pool order
	buf := make([]byte, 0, 256)
	var fixed [4]byte
	for i := 1; i < count; i++ {
		at := off
		var tag [1]byte
		if err := read(tag[:]); err != nil {
			return err
		}
		switch tag[0] {
		case constUtf8:
			if err := read(fixed[:2]); err != nil {
				return err
			}
			n := int(binary.BigEndian.Uint16(fixed[:2]))
			start := off
			if n > maxClassString {
				if _, err := io.CopyN(io.Discard, br, int64(n)); err != nil {
					return fmt.Errorf("class file: constant %d at offset %d: truncated string", i, at)
				}
				off += int64(n)
				continue
			}
			if cap(buf) < n {
				buf = make([]byte, n, maxClassString)
			}
			buf = buf[:n]
			if err := read(buf); err != nil {
				return err
			}
			strs[i] = utf8Const{string(buf), start}
		case constClass:
			if err := read(fixed[:2]); err != nil {
				return err
			}
			idx := int(binary.BigEndian.Uint16(fixed[:2]))
			if idx == 0 || idx >= count {
				return fmt.Errorf("class file: constant %d at offset %d: class name index %d out of range 1..%d", i, at, idx, count-1)
			}
			classRefs = append(classRefs, idx)
		case constString, constMethodType, constModule, constPackage:
			if err := read(fixed[:2]); err != nil {
				return err
			}
		case constMethodHandle:
			if err := read(fixed[:3]); err != nil {
				return err
			}
		case constInteger, constFloat, constFieldref, constMethodref, constInterfaceMethodref,
			constNameAndType, constDynamic, constInvokeDynamic:
			if err := read(fixed[:4]); err != nil {
				return err
			}
		case constLong, constDouble:
			var b8 [8]byte
			if err := read(b8[:]); err != nil {
				return err
			}
			i++ // takes two slots
		default:
			return fmt.Errorf("class file: constant %d at offset %d: unknown tag %d", i, at, tag[0])
		}
	}
	isClassName := map[int]bool{}
	for _, idx := range classRefs {
		isClassName[idx] = true
	}
	seen := map[string]bool{}
	emit := func(l Link) error {
		if seen[l.URL] {
			return nil
		}
		seen[l.URL] = true
		return f(l)
	}
	for i := 1; i < count; i++ {
		c, ok := strs[i]
		if !ok {
			continue
		}
		if isClassName[i] {
			name := c.s
			if strings.HasPrefix(name, "[") {
				// array descriptor: [[Lpkg/Name; or [I
				name = strings.TrimLeft(name, "[")
				if !strings.HasPrefix(name, "L") || !strings.HasSuffix(name, ";") {
					continue
				}
				name = name[1 : len(name)-1]
			}
			if name == "" || isSystemClass(name) || strings.ContainsAny(name, " \t\r\n\"'<>;[") {
				continue
			}
			abs, _, ok := Resolve(codebase, escapeClassPath(name)+".class")
			if !ok {
				continue
			}
			if err := emit(Link{URL: abs, Value: name + ".class", Kind: Embedded, Tag: "class", Attr: "class",
				Start: c.off, End: c.off + int64(len(c.s)), Syntax: SyntaxClass}); err != nil {
				return err
			}
			continue
		}
		if !LooksLikeURL(c.s) {
			continue
		}
		abs, frag, ok := Resolve(codebase, c.s)
		if !ok {
			continue
		}
		if err := emit(Link{URL: abs, Fragment: frag, Value: c.s, Kind: KindOf(abs), Tag: "class", Attr: "string",
			Start: c.off, End: c.off + int64(len(c.s)), Syntax: SyntaxClass}); err != nil {
			return err
		}
	}
	return nil
}

func isSystemClass(name string) bool {
	for _, p := range systemPackages {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// escapeClassPath keeps a binary class name usable as a relative path: '$'
// of inner classes is fine in URLs, '#', '?' and '%' are not.
func escapeClassPath(name string) string {
	return strings.NewReplacer("%", "%25", "#", "%23", "?", "%3F").Replace(name)
}

// AppletClassPath turns an applet code attribute ("Clock.class",
// "com.example.Clock", "com/example/Clock.class") into the relative path of
// its class file ("Clock.class", "com/example/Clock.class").
func AppletClassPath(code string) string {
	code = cleanValue(code)
	if code == "" {
		return ""
	}
	if strings.HasSuffix(code, ".class") {
		stem := strings.TrimSuffix(code, ".class")
		if !strings.Contains(stem, "/") {
			stem = strings.ReplaceAll(stem, ".", "/")
		}
		return stem + ".class"
	}
	if strings.Contains(code, "/") || strings.Contains(code, "://") {
		return code
	}
	return strings.ReplaceAll(code, ".", "/") + ".class"
}
