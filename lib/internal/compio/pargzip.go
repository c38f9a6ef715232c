package compio

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"sync"

	"github.com/klauspost/compress/flate"
)

// parChunk is the input size compressed by one goroutine in a parallel
// gzip member.
const parChunk = 1 << 20

// dictSize is the deflate window: each chunk is compressed with the
// previous chunk's last 32 KiB as preset dictionary, so the chunks form one
// ordinary deflate stream.
const dictSize = 32 << 10

type parJob struct {
	in, dict []byte
	out      appendWriter
	last     bool
	err      error
	done     chan struct{}
}

// writeGzipParallel writes r as one gzip member (RFC 1952) to w, deflating
// 1 MiB chunks on up to n goroutines as pigz does: each chunk is primed with
// the previous chunk's last 32 KiB and ends with a sync flush, the last one
// with the final block. Memory use is bounded by about 2n chunks.
func writeGzipParallel(w io.Writer, r io.Reader, level, n int) error {
	// Header: no name, no mtime, OS unknown (as klauspost's gzip writes).
	if _, err := w.Write([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}); err != nil {
		return err
	}
	work := make(chan *parJob, n)
	order := make(chan *parJob, n)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var fw *flate.Writer
			for j := range work {
				j.out.b = j.out.b[:0]
				if fw == nil {
					fw, j.err = flate.NewWriterDict(&j.out, level, j.dict)
				} else {
					fw.ResetDict(&j.out, j.dict)
				}
				if j.err == nil {
					if _, j.err = fw.Write(j.in); j.err == nil {
						if j.last {
							j.err = fw.Close()
						} else {
							j.err = fw.Flush()
						}
					}
				}
				j.done <- struct{}{}
			}
		}()
	}
	// Writer side: drain order, write outputs, recycle buffers.
	free := make(chan *parJob, n+8)
	werr := make(chan error, 1)
	go func() {
		var err error
		for j := range order {
			<-j.done
			if err == nil {
				if err = j.err; err == nil {
					_, err = w.Write(j.out.b)
				}
			}
			free <- j
		}
		werr <- err
	}()
	get := func() *parJob {
		select {
		case j := <-free:
			return j
		default:
			return &parJob{in: make([]byte, 0, parChunk), done: make(chan struct{}, 1)}
		}
	}
	crc := crc32.NewIEEE()
	var size uint32
	var prevTail []byte
	var readErr error
	var off int64 // input bytes read
	cur := get()
	cur.in = cur.in[:parChunk]
	nr, err := readChunk(r, cur.in)
	cur.in = cur.in[:nr]
	off += int64(nr)
	for {
		if err != nil && err != io.EOF {
			// io.ErrUnexpectedEOF too: the input was cut short, which
			// must not pass for its end
			readErr = fmt.Errorf("input at offset %d: %w", off, err)
			break
		}
		last := err != nil
		var next *parJob
		var nerr error
		if !last {
			// Read ahead to know whether cur is the last chunk.
			next = get()
			next.in = next.in[:parChunk]
			var nn int
			nn, nerr = readChunk(r, next.in)
			next.in = next.in[:nn]
			off += int64(nn)
			if nn == 0 && nerr == io.EOF {
				last = true
				free <- next
				next = nil
			} else if nerr != nil && nerr != io.EOF {
				readErr = fmt.Errorf("input at offset %d: %w", off, nerr)
				break
			}
		}
		crc.Write(cur.in)
		size += uint32(len(cur.in))
		cur.dict = append(cur.dict[:0], prevTail...)
		cur.last = last
		if len(cur.in) >= dictSize {
			prevTail = append(prevTail[:0], cur.in[len(cur.in)-dictSize:]...)
		} else {
			prevTail = append(prevTail, cur.in...)
			if len(prevTail) > dictSize {
				prevTail = prevTail[len(prevTail)-dictSize:]
			}
		}
		order <- cur
		work <- cur
		if last {
			break
		}
		cur, err = next, nerr
	}
	close(work)
	close(order)
	wg.Wait()
	if err := <-werr; err != nil {
		return err
	}
	if readErr != nil {
		return readErr
	}
	var t [8]byte
	binary.LittleEndian.PutUint32(t[:4], crc.Sum32())
	binary.LittleEndian.PutUint32(t[4:], size)
	_, err = w.Write(t[:])
	return err
}

// readChunk fills p from r. Unlike io.ReadFull it tells a clean end of the
// input (io.EOF, with whatever was read before it) from an input that
// failed, io.ErrUnexpectedEOF included (a truncated compressed input says
// so): those errors come back as they are.
func readChunk(r io.Reader, p []byte) (int, error) {
	n := 0
	for n < len(p) {
		m, err := r.Read(p[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
