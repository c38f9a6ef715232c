//go:build !linux

package browser

// processesUsing is known on Linux only; elsewhere the browser process
// killed by chromedp is all there is.
func processesUsing(string) []int { return nil }

func killUsing(string) int { return 0 }
