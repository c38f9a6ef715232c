package replay

import (
	"bytes"
	"context"
	"image/png"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/internal/peertest"
)

// TestUIScreenshots renders each page in headless Chromium and checks
// that the screenshot is a page (not blank, not an error); with
// ARCPORT_UI_SCREENSHOTS=DIR the PNGs are kept there as serve-NAME.png
// (docs/img/serve-calendar.png is made so).
func TestUIScreenshots(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	chromium := peertest.Chromium(t)
	ts, caps := uiServer(t)
	var rec gardenCapture
	for _, c := range caps {
		if c.url == "http://garden.example/news/2025.html" {
			rec = c
		}
	}
	// the busiest day of the home page
	days := map[string]int{}
	busiest := ""
	for _, c := range caps {
		if c.url == "http://garden.example/" {
			days[c.ts[:8]]++
			if busiest == "" || days[c.ts[:8]] > days[busiest] {
				busiest = c.ts[:8]
			}
		}
	}
	out := os.Getenv("ARCPORT_UI_SCREENSHOTS")
	if out == "" {
		out = t.TempDir()
	}
	pages := []struct {
		name, target string
		height       int
	}{
		{"home", "/", 520},
		{"collection", "/garden/?url=garden.example&matchType=host", 900},
		{"calendar", "/garden/" + busiest[:4] + "*/http://garden.example/", 1130},
		{"day", "/garden/" + busiest + "*/http://garden.example/", 1500},
		{"pages", "/garden/pages", 620},
		{"pages-search", "/garden/pages?q=treasure", 420},
		{"record", "/garden/record?" + url.Values{"url": {rec.url}, "ts": {rec.ts}}.Encode(), 1500},
		{"error", "/garden/?url=x&matchType=regex", 400},
		{"all", "/all/?url=iana.org&matchType=domain", 900},
	}
	for _, p := range pages {
		png := filepath.Join(out, "serve-"+p.name+".png")
		ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
		cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
			"--no-first-run", "--disable-extensions", "--user-data-dir="+t.TempDir(),
			"--window-size=1280,"+strconv.Itoa(p.height), "--screenshot="+png, ts.URL+p.target)
		b, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("%s: %v\n%s", p.name, err, b)
		}
		checkScreenshot(t, png, p.height)
	}
	// a WACZ 1.1.1 with extra pages (py-wacz's): the seeds and the extra
	// pages, marked, with the filter
	t.Run("extra-pages", func(t *testing.T) {
		p, _, _ := pyWACZExtra(t)
		c, err := Open(t.Context(), "garden", p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		s, err := NewServer(c)
		if err != nil {
			t.Fatal(err)
		}
		base := newUITestServer(t, s)
		png := filepath.Join(out, "serve-pages-extra.png")
		ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
			"--no-first-run", "--disable-extensions", "--user-data-dir="+t.TempDir(),
			"--window-size=1280,700", "--screenshot="+png, base+"/garden/pages")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("pages-extra: %v\n%s", err, b)
		}
		checkScreenshot(t, png, 700)
	})
	t.Logf("screenshots in %s", out)
}

// checkScreenshot wants a PNG of 1280 × height with more than a few
// colours (a page was drawn).
func checkScreenshot(t *testing.T, p string, height int) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	if r := img.Bounds(); r.Dx() != 1280 || r.Dy() != height {
		t.Errorf("%s: %v", p, r)
	}
	colors := map[[3]uint32]bool{}
	for y := 0; y < img.Bounds().Dy(); y += 7 {
		for x := 0; x < img.Bounds().Dx(); x += 7 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colors[[3]uint32{r >> 12, g >> 12, bl >> 12}] = true
		}
	}
	if len(colors) < 8 {
		t.Errorf("%s: %d colours: a blank page?", p, len(colors))
	}
}
