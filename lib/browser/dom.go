package browser

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// Reading the rendered page: every frame's DOM, text and links.

//go:embed frame.js
var frameJS string

type frameResult struct {
	URL   string      `json:"url"`
	Title string      `json:"title"`
	HTML  string      `json:"html"`
	Text  string      `json:"text"`
	Links [][2]string `json:"links"`
	Over  int         `json:"over"` // the characters of DOM and text, when over the limit
}

// frames reads every frame of the page: those in the tab's process from
// its frame tree, and the cross-site frames through their own targets.
// Each is read in an isolated world, so the page's scripts cannot see or
// spoil the reading.
func (t *tab) frames(ctx context.Context) ([]Frame, []Link, error) {
	infos, err := chromedp.Targets(ctx)
	if err != nil {
		return nil, nil, err
	}
	// The cross-site frames of this page, by their ids.
	remote := map[cdp.FrameID]bool{}
	for _, in := range infos {
		if in.Type == "iframe" {
			if o, _ := t.b.owner(cdp.FrameID(in.TargetID)); o == t {
				remote[cdp.FrameID(in.TargetID)] = true
			}
		}
	}
	var frames []Frame
	var links []Link
	left := t.opts.MaxDOM
	read := func(ctx context.Context, skipRoot bool) error {
		tree, err := chromedp.Call(ctx, page.GetFrameTree, cdp.Empty{})
		if err != nil {
			return err
		}
		var ids []cdp.FrameID
		var walk func(ft *page.FrameTree, root bool)
		walk = func(ft *page.FrameTree, root bool) {
			if !root || !skipRoot {
				if remote[ft.Frame.ID] {
					return
				}
			}
			ids = append(ids, ft.Frame.ID)
			for _, c := range ft.ChildFrames {
				walk(c, false)
			}
		}
		walk(tree.FrameTree, true)
		for _, id := range ids {
			fr, err := readFrame(ctx, id, left)
			if err != nil {
				if ctx.Err() != nil {
					return err
				}
				continue // a frame gone meanwhile
			}
			if fr.Over > 0 {
				return fmt.Errorf("%w: %d characters of DOM and text in frame %s, over %d", ErrTooLarge, fr.Over, fr.URL, t.opts.MaxDOM)
			}
			left -= len(fr.HTML) + len(fr.Text)
			frames = append(frames, Frame{URL: fr.URL, Title: fr.Title, HTML: fr.HTML, Text: fr.Text})
			for _, l := range fr.Links {
				links = append(links, Link{Tag: l[0], URL: l[1]})
			}
		}
		return nil
	}
	if err := read(ctx, false); err != nil {
		return nil, nil, err
	}
	for id := range remote {
		fctx, cancel := chromedp.NewContext(ctx, chromedp.WithTargetID(target.ID(id)), chromedp.WithDetachOnCancel())
		err := read(fctx, true)
		cancel()
		if err != nil && ctx.Err() != nil {
			return nil, nil, err
		}
	}
	return frames, links, nil
}

// readFrame reads a frame with frame.js, in an isolated world of its own.
func readFrame(ctx context.Context, id cdp.FrameID, limit int) (*frameResult, error) {
	w, err := chromedp.Call(ctx, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: id, WorldName: "arcport"})
	if err != nil {
		return nil, err
	}
	yes := true
	res, err := chromedp.Call(ctx, runtime.Evaluate, runtime.EvaluateParams{
		Expression: fmt.Sprintf("(%s)(%d)", frameJS, limit), ContextID: w.ExecutionContextID, ReturnByValue: &yes,
	})
	if err != nil {
		return nil, err
	}
	if res.ExceptionDetails != nil {
		return nil, fmt.Errorf("reading frame %s: %s", id, res.ExceptionDetails.Text)
	}
	var fr frameResult
	if err := json.Unmarshal(res.Result.Value, &fr); err != nil {
		return nil, err
	}
	return &fr, nil
}
