package surt

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/idna"
	"golang.org/x/text/unicode/norm"
)

// This file is "domain to ASCII" as Node 20 runs it: ada 2.9's ada::idna
// to_ascii (ada-url/idna at commit cf821be), whose validation differs in
// places from UTS #46 as written (labels are checked one by one, ZWJ/ZWNJ
// next to a virama accept the label at once, punycode labels decoding to
// ASCII are accepted). The UTS #46 mapping itself (Unicode 15, non-
// transitional, STD3 rules off) comes from golang.org/x/net/idna.

// mapProfile performs only the UTS #46 mapping step (and NFC).
var mapProfile = idna.New(
	idna.MapForLookup(),
	idna.Transitional(false),
	idna.StrictDomainName(false),
	idna.ValidateLabels(false),
	idna.CheckHyphens(false),
	idna.CheckJoiners(false),
	idna.VerifyDNSLength(false),
)

// idnaMap maps s with the UTS #46 mapping table; ok is false when s holds a
// disallowed code point (ada's map then returns the empty string).
func idnaMap(s string) (string, bool) {
	var b strings.Builder
	for _, r := range s {
		if r < 0x80 {
			if r >= 'A' && r <= 'Z' {
				r += 'a' - 'A'
			}
			b.WriteRune(r)
			continue
		}
		if r == utf8.RuneError || r == '\uFFFD' {
			return "", false
		}
		m, err := mapProfile.ToUnicode(string(r))
		if err != nil {
			return "", false
		}
		b.WriteString(m)
	}
	return b.String(), true
}

// domainToASCII is the WHATWG "domain to ASCII" with beStrict false.
func domainToASCII(d string) (string, bool) {
	r := adaToASCII(d)
	return r, r != ""
}

// adaToASCII returns "" on error, as ada does.
func adaToASCII(d string) string {
	ascii := true
	for i := 0; i < len(d); i++ {
		if d[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		low := strings.ToLower(d)
		if !strings.HasPrefix(low, "xn--") && !strings.Contains(low, ".xn--") {
			return low
		}
		for _, label := range strings.Split(low, ".") {
			if strings.HasPrefix(label, "xn--") && !validPunycodeLabel(label[4:]) {
				return ""
			}
		}
		return low
	}
	mapped, ok := idnaMap(d)
	if !ok {
		return ""
	}
	mapped = norm.NFC.String(mapped)
	var out strings.Builder
	labels := strings.Split(mapped, ".")
	for i, label := range labels {
		switch {
		case label == "":
		case strings.HasPrefix(label, "xn--"):
			for j := 0; j < len(label); j++ {
				if label[j] >= 0x80 {
					return ""
				}
			}
			if !validPunycodeLabel(label[4:]) {
				return ""
			}
			out.WriteString(label)
		case isASCII(label):
			out.WriteString(label)
		default:
			rs := []rune(label)
			if !adaLabelValid(rs) {
				return ""
			}
			out.WriteString("xn--")
			enc, ok := punyEncode(rs)
			if !ok {
				return ""
			}
			out.WriteString(enc)
		}
		if i < len(labels)-1 {
			out.WriteByte('.')
		}
	}
	return out.String()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// validPunycodeLabel checks the part of an "xn--" label after the prefix as
// ada does: it decodes, is stable under mapping and NFC, is not empty and
// passes the label validity checks.
func validPunycodeLabel(p string) bool {
	dec, ok := punyDecode(p)
	if !ok || len(dec) == 0 {
		return false
	}
	for _, r := range dec {
		if r > unicode.MaxRune || (r >= 0xD800 && r <= 0xDFFF) {
			return false
		}
	}
	s := string(dec)
	m, ok := idnaMap(s)
	if !ok || m != s {
		return false
	}
	if norm.NFC.String(s) != s {
		return false
	}
	return adaLabelValid(dec)
}

func inSorted(tab []rune, r rune) bool {
	i := sort.Search(len(tab), func(i int) bool { return tab[i] >= r })
	return i < len(tab) && tab[i] == r
}

func adaDirection(r rune) uint8 {
	i := sort.Search(len(adaDirTable), func(i int) bool { return adaDirTable[i].hi >= r })
	if i == len(adaDirTable) || r < adaDirTable[i].lo {
		return dirNONE
	}
	return adaDirTable[i].dir
}

// adaLabelValid is ada::idna::is_label_valid (cf821be), quirks included.
func adaLabelValid(label []rune) bool {
	if len(label) == 0 {
		return true
	}
	if inSorted(adaCombining, label[0]) {
		return false
	}
	for i, c := range label {
		if c == 0x200c {
			if i > 0 && inSorted(adaVirama, label[i-1]) {
				return true
			}
			if i == 0 || i+1 >= len(label) {
				return false
			}
			lOrD, rOrD := false, false
			for _, x := range label[:i] {
				if inSorted(adaJoinL, x) || inSorted(adaJoinD, x) {
					lOrD = true
					break
				}
			}
			for _, x := range label[i+1:] {
				if inSorted(adaJoinR, x) || inSorted(adaJoinD, x) {
					rOrD = true
					break
				}
			}
			return lOrD && rOrD
		} else if c == 0x200d {
			if i > 0 && inSorted(adaVirama, label[i-1]) {
				return true
			}
			return false
		}
	}
	last := -1
	for i := len(label) - 1; i >= 0; i-- {
		if adaDirection(label[i]) != dirNSM {
			last = i
			break
		}
	}
	if last < 0 {
		return false
	}
	rtl := false
	for _, c := range label {
		switch adaDirection(c) {
		case dirR, dirAL, dirAN:
			rtl = true
		}
	}
	if !rtl {
		return true
	}
	if adaDirection(label[0]) == dirL {
		for i := 0; i < last; i++ {
			switch adaDirection(label[i]) {
			case dirL, dirEN, dirES, dirCS, dirET, dirON, dirBN, dirNSM:
			default:
				return false
			}
		}
		return true
	}
	hasAN, hasEN := false, false
	for i := 0; i <= last; i++ {
		d := adaDirection(label[i])
		if d == dirEN {
			hasEN = true
			if hasAN {
				return false
			}
		}
		if d == dirAN {
			hasAN = true
			if hasEN {
				return false
			}
		}
		switch d {
		case dirR, dirAL, dirAN, dirEN, dirES, dirCS, dirET, dirON, dirBN, dirNSM:
		default:
			return false
		}
		if i == last {
			switch d {
			case dirR, dirAL, dirAN, dirEN:
			default:
				return false
			}
		}
	}
	return true
}

// Punycode (RFC 3492) as ada implements it.
const (
	pyBase        = 36
	pyTMin        = 1
	pyTMax        = 26
	pySkew        = 38
	pyDamp        = 700
	pyInitialBias = 72
	pyInitialN    = 128
	maxInt32      = 0x7fffffff
)

func pyAdapt(d, n int32, first bool) int32 {
	if first {
		d /= pyDamp
	} else {
		d /= 2
	}
	d += d / n
	k := int32(0)
	for d > ((pyBase-pyTMin)*pyTMax)/2 {
		d /= pyBase - pyTMin
		k += pyBase
	}
	return k + ((pyBase-pyTMin+1)*d)/(d+pySkew)
}

func pyDigit(c byte) int32 {
	switch {
	case c >= 'a' && c <= 'z':
		return int32(c - 'a')
	case c >= '0' && c <= '9':
		return int32(c-'0') + 26
	}
	return -1
}

func punyDecode(in string) ([]rune, bool) {
	var out []rune
	n := int64(pyInitialN)
	i := int32(0)
	bias := int32(pyInitialBias)
	if e := strings.LastIndexByte(in, '-'); e >= 0 {
		for j := 0; j < e; j++ {
			if in[j] >= 0x80 {
				return nil, false
			}
			out = append(out, rune(in[j]))
		}
		in = in[e+1:]
	}
	for len(in) > 0 {
		oldi := i
		w := int32(1)
		for k := int32(pyBase); ; k += pyBase {
			if len(in) == 0 {
				return nil, false
			}
			digit := pyDigit(in[0])
			in = in[1:]
			if digit < 0 {
				return nil, false
			}
			if digit > (maxInt32-i)/w {
				return nil, false
			}
			i += digit * w
			t := k - bias
			if k <= bias {
				t = pyTMin
			} else if k >= bias+pyTMax {
				t = pyTMax
			}
			if digit < t {
				break
			}
			if w > maxInt32/(pyBase-t) {
				return nil, false
			}
			w *= pyBase - t
		}
		written := int32(len(out))
		bias = pyAdapt(i-oldi, written+1, oldi == 0)
		if int64(i/(written+1)) > maxInt32-n {
			return nil, false
		}
		n += int64(i / (written + 1))
		i %= written + 1
		if n < 0x80 {
			return nil, false
		}
		out = append(out, 0)
		copy(out[i+1:], out[i:])
		out[i] = rune(n)
		i++
	}
	return out, true
}

func pyChar(d int32) byte {
	if d < 26 {
		return byte(d + 97)
	}
	return byte(d + 22)
}

func punyEncode(in []rune) (string, bool) {
	var out []byte
	n := int32(pyInitialN)
	d := int32(0)
	bias := int32(pyInitialBias)
	h := 0
	for _, c := range in {
		if c < 0x80 {
			h++
			out = append(out, byte(c))
		}
		if c > 0x10ffff || (c >= 0xd880 && c < 0xe000) {
			return "", false
		}
	}
	b := h
	if b > 0 {
		out = append(out, '-')
	}
	for h < len(in) {
		m := int32(0x10FFFF)
		for _, c := range in {
			if c >= n && c < m {
				m = c
			}
		}
		if int64(m-n) > int64(maxInt32-d)/int64(h+1) {
			return "", false
		}
		d += (m - n) * int32(h+1)
		n = m
		for _, c := range in {
			if c < n {
				if d == maxInt32 {
					return "", false
				}
				d++
			}
			if c == n {
				q := d
				for k := int32(pyBase); ; k += pyBase {
					t := k - bias
					if k <= bias {
						t = pyTMin
					} else if k >= bias+pyTMax {
						t = pyTMax
					}
					if q < t {
						break
					}
					out = append(out, pyChar(t+(q-t)%(pyBase-t)))
					q = (q - t) / (pyBase - t)
				}
				out = append(out, pyChar(q))
				bias = pyAdapt(d, int32(h+1), h == b)
				d = 0
				h++
			}
		}
		d++
		n++
	}
	return string(out), true
}
