package warc

import "strings"

// notInName are the bytes a header field name may not hold: the Writer
// refuses them, and the Reader repairs them (WARC 1.1 section 4: a field
// name is a token, without separators or white space). A flipped bit turns
// '-' (0x2d) into CR (0x0d), so a name such as "WARC-Target\rURI" does turn
// up in damaged files.
const notInName = ":\r\n \t"

// repairName replaces each byte of name the Writer refuses with '-'.
func repairName(name string) string {
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune(notInName, r) {
			return '-'
		}
		return r
	}, name)
}

// repairValue replaces each bare CR (a CR not part of a line end) of a
// field value with a space, as RFC 9112 section 2.2 lets a recipient do.
func repairValue(value string) string {
	return strings.ReplaceAll(value, "\r", " ")
}
