package batch

import (
	"bufio"
	"container/heap"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/arcport/arcport/lib/store"
)

// Pin returns the token a plan and a done marker keep of an input or
// output: its ETag, or for a local file "local:SIZE:MTIME" (mtime in
// nanoseconds since 1970, UTC), see the package documentation; for a
// remote object without an ETag (some http servers) "size:SIZE".
func Pin(info store.Info) string {
	if info.ETag != "" {
		return info.ETag
	}
	if info.ModTime.IsZero() {
		// a remote object whose server sends no ETag: only its size
		return fmt.Sprintf("size:%d", info.Size)
	}
	return fmt.Sprintf("local:%d:%d", info.Size, info.ModTime.UnixNano())
}

// StatConcurrency is how many inputs Plan stats at once (HEAD requests
// wait on the network, not on the machine).
const StatConcurrency = 16

// Plan stats every input of l and returns it as a plan for count shards:
// each input pinned (size, Pin) and assigned by LPT (largest first to the
// least loaded shard; equal sizes in list order; equal loads to the lower
// shard number), so the same list of the same objects always gives the
// same plan.
func Plan(ctx context.Context, st *store.Store, l *List, count int) (*List, error) {
	if count < 1 {
		return nil, fmt.Errorf("shard count %d", count)
	}
	ins := make([]Input, len(l.Inputs))
	copy(ins, l.Inputs)
	errs := make([]error, len(ins))
	var wg sync.WaitGroup
	sem := make(chan struct{}, StatConcurrency)
	for i := range ins {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer func() { <-sem; wg.Done() }()
			info, err := st.Stat(ctx, ins[i].Name)
			if err != nil {
				errs[i] = err
				return
			}
			ins[i].Size, ins[i].ETag = info.Size, Pin(info)
		}(i)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	Balance(ins, count)
	return &List{Inputs: ins, ShardCount: count}, nil
}

// Balance sets the Shard of every input by LPT over their Size: inputs by
// decreasing size (equal sizes by Index), each to the shard with the least
// bytes so far (equal loads: the lower shard number).
func Balance(ins []Input, count int) {
	order := make([]int, len(ins))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		x, y := ins[order[a]], ins[order[b]]
		if x.Size != y.Size {
			return x.Size > y.Size
		}
		return x.Index < y.Index
	})
	h := make(loads, count)
	for i := range h {
		h[i] = load{shard: i}
	}
	heap.Init(&h)
	for _, i := range order {
		h[0].bytes += max(ins[i].Size, 0)
		ins[i].Shard = h[0].shard
		heap.Fix(&h, 0)
	}
}

type load struct {
	shard int
	bytes int64
}

// loads is a min-heap of shards by bytes, then shard number.
type loads []load

func (h loads) Len() int { return len(h) }
func (h loads) Less(i, j int) bool {
	if h[i].bytes != h[j].bytes {
		return h[i].bytes < h[j].bytes
	}
	return h[i].shard < h[j].shard
}
func (h loads) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *loads) Push(x any)   { *h = append(*h, x.(load)) }
func (h *loads) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// WritePlan writes plan p as JSON lines: a header line
// {"arcport_plan":1,"shard_count":K,"inputs":N,"bytes":B,"balance":"lpt"}
// then one line per input in list order
// {"input":NAME,"index":N,"shard":S,"size":BYTES,"etag":PIN}.
func WritePlan(w io.Writer, p *List) error {
	bw := bufio.NewWriter(w)
	var total int64
	for _, in := range p.Inputs {
		total += in.Size
	}
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(planHeader{Plan: PlanVersion, ShardCount: p.ShardCount, Inputs: len(p.Inputs), Bytes: total, Balance: "lpt"}); err != nil {
		return err
	}
	for _, in := range p.Inputs {
		if err := enc.Encode(in); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ShardBytes returns the bytes of each shard of plan p.
func ShardBytes(p *List) []int64 {
	b := make([]int64, p.ShardCount)
	for _, in := range p.Inputs {
		b[in.Shard] += in.Size
	}
	return b
}

// now is time.Now, for the seconds of results.
var now = time.Now
