package zimdump

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/arcport/arcport/lib/zim"
)

// iso639 maps the two-letter codes found in lang attributes to the
// three-letter codes (ISO 639-3) M/Language takes.
var iso639 = map[string]string{"en": "eng", "fr": "fra", "de": "deu", "es": "spa", "it": "ita",
	"pt": "por", "nl": "nld", "ru": "rus", "zh": "zho", "ja": "jpn", "ko": "kor", "ar": "ara",
	"pl": "pol", "sv": "swe", "da": "dan", "fi": "fin", "no": "nor", "nb": "nob", "cs": "ces",
	"el": "ell", "he": "heb", "hi": "hin", "hu": "hun", "id": "ind", "tr": "tur", "uk": "ukr",
	"vi": "vie", "ro": "ron", "ca": "cat", "fa": "fas", "th": "tha", "bn": "ben", "sk": "slk",
	"bg": "bul", "hr": "hrv", "sr": "srp", "sl": "slv", "et": "est", "lv": "lav", "lt": "lit",
	"eo": "epo", "eu": "eus", "gl": "glg", "ms": "msa", "sw": "swa", "ta": "tam", "ur": "urd"}

var langAttr = regexp.MustCompile(`(?is)<html\b[^>]*?\slang\s*=\s*["']?([A-Za-z]{2,3})\b`)

// htmlLang returns the ISO 639-3 code of a page's <html lang>, or "".
func htmlLang(head []byte) string {
	m := langAttr.FindSubmatch(head)
	if m == nil {
		return ""
	}
	l := strings.ToLower(string(m[1]))
	if len(l) == 3 {
		return l
	}
	return iso639[l]
}

// clip cuts s to n runes.
func clipRunes(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// zimName makes M/Name from the output's file name.
func zimName(out string) string {
	b := strings.TrimSuffix(path.Base(filepath.ToSlash(out)), ".zim")
	var sb strings.Builder
	for _, c := range strings.ToLower(b) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '_', c == '-', c == '.':
			sb.WriteRune(c)
		default:
			sb.WriteByte('_')
		}
	}
	if sb.Len() == 0 {
		return "site"
	}
	return sb.String()
}

// addMetadata writes the M/ entries: those given, the others defaulted
// from the main page so that the archive has every metadata zimcheck
// requires, and the 48x48 illustration.
// icon is the --illustration as a 48x48 PNG, or nil for a drawn one.
func (s *site) addMetadata(zw *zim.Writer, c *createArgs, mainTitle, mainLang string, mainIdx int, icon []byte) error {
	host := ""
	if u, err := url.Parse(s.caps[mainIdx].url); err == nil && u.Host != "" {
		host = u.Host
	}
	if host == "" {
		host = filepath.Base(filepath.Clean(c.input))
	}
	m := map[string]string{}
	for k, v := range c.meta {
		m[k] = v
	}
	def := func(k, v string) {
		if _, ok := m[k]; !ok && v != "" {
			m[k] = v
		}
	}
	def("Title", clipRunes(mainTitle, 30))
	def("Title", clipRunes(host, 30))
	def("Language", mainLang)
	def("Language", "eng")
	def("Creator", host)
	def("Publisher", "arcport")
	def("Description", clipRunes("Offline copy of "+host, 80))
	def("Name", zimName(c.output))
	def("Date", time.Now().UTC().Format("2006-01-02"))
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := zw.AddMetadata(k, "", strings.NewReader(m[k])); err != nil {
			return err
		}
	}
	if icon == nil {
		icon = drawIllustration(m["Title"])
	}
	return zw.AddMetadata("Illustration_48x48@1", "image/png", bytes.NewReader(icon))
}

// illustrationFrom reads a PNG (or GIF/JPEG decoders registered
// elsewhere) and returns it as a 48x48 PNG, scaled when needed.
func illustrationFrom(p string) ([]byte, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: --illustration must be a PNG: %v", p, err)
	}
	r := img.Bounds()
	if r.Dx() == 48 && r.Dy() == 48 {
		return b, nil
	}
	dst := image.NewNRGBA(image.Rect(0, 0, 48, 48))
	for y := range 48 {
		for x := range 48 {
			dst.Set(x, y, img.At(r.Min.X+x*r.Dx()/48, r.Min.Y+y*r.Dy()/48))
		}
	}
	var out bytes.Buffer
	if err := png.Encode(&out, dst); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// drawIllustration draws a 48x48 PNG for a title: a square of a colour
// taken from the title with a white page on it.
func drawIllustration(title string) []byte {
	h := fnv.New32a()
	h.Write([]byte(title))
	v := h.Sum32()
	bg := color.NRGBA{uint8(40 + v%150), uint8(40 + (v>>8)%150), uint8(40 + (v>>16)%150), 255}
	img := image.NewNRGBA(image.Rect(0, 0, 48, 48))
	draw.Draw(img, img.Bounds(), &image.Uniform{bg}, image.Point{}, draw.Src)
	draw.Draw(img, image.Rect(12, 8, 36, 40), &image.Uniform{color.NRGBA{250, 250, 250, 255}}, image.Point{}, draw.Src)
	for y := 14; y < 36; y += 5 {
		draw.Draw(img, image.Rect(16, y, 32, y+2), &image.Uniform{bg}, image.Point{}, draw.Src)
	}
	var out bytes.Buffer
	png.Encode(&out, img)
	return out.Bytes()
}
