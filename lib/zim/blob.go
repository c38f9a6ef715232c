package zim

import (
	"fmt"
	"io"
)

// Cluster returns cluster idx through the cache, with its data when it is
// compressed and not larger than the in-memory limit.
func (a *Archive) Cluster(idx uint32) (*Cluster, error) { return a.clusters.full(idx) }

// ClusterHeader returns cluster idx with its blob offset table; for a
// compressed cluster only the start of it is decompressed.
func (a *Archive) ClusterHeader(idx uint32) (*Cluster, error) { return a.clusters.header(idx) }

// LoadCluster reads cluster idx (with its data, as Cluster) without going
// through the cache: for passes that visit each cluster once.
func (a *Archive) LoadCluster(idx uint32) (*Cluster, error) { return a.loadCluster(idx, true, nil) }

func (a *Archive) itemCheck(e *Entry) error {
	if e.Kind == KindRedirect {
		return ErrIsRedirect
	}
	if e.Cluster >= a.hdr.ClusterCount {
		return a.errf(e.Offset, "cluster index out of range")
	}
	return nil
}

// BlobSize returns the size of the data of item e.
func (a *Archive) BlobSize(e *Entry) (int64, error) {
	if err := a.itemCheck(e); err != nil {
		return 0, err
	}
	c, err := a.clusters.header(e.Cluster)
	if err != nil {
		return 0, err
	}
	return c.BlobSize(e.Blob)
}

// OpenBlob returns a reader of the data of item e and its size.
func (a *Archive) OpenBlob(e *Entry) (io.ReadCloser, int64, error) {
	if err := a.itemCheck(e); err != nil {
		return nil, 0, err
	}
	c, err := a.clusters.full(e.Cluster)
	if err != nil {
		return nil, 0, err
	}
	size, err := c.BlobSize(e.Blob)
	if err != nil {
		return nil, 0, err
	}
	r, err := c.OpenBlob(e.Blob)
	return r, size, err
}

// ReadBlob returns the data of item e. Use OpenBlob for data that may be
// large.
func (a *Archive) ReadBlob(e *Entry) ([]byte, error) {
	r, size, err := a.OpenBlob(e)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b := make([]byte, 0, min(size, 1<<20))
	for int64(len(b)) < size {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		k := min(int64(cap(b)-len(b)), size-int64(len(b)))
		n, err := io.ReadFull(r, b[len(b):len(b)+int(k)])
		b = b[:len(b)+n]
		if err != nil {
			return nil, a.errf(int64(e.Offset), "reading the data of %s: %v", a.PathOf(e), noEOF(err))
		}
	}
	return b, nil
}

// Checksum returns the MD5 stored in the archive as lower-case hex; ok is
// false when the archive has no checksum or it cannot be read.
func (a *Archive) Checksum() (sum string, ok bool) {
	if !a.hdr.HasChecksum() {
		return "", false
	}
	var b [16]byte
	if err := a.readFull(b[:], int64(a.hdr.ChecksumPos), "checksum"); err != nil {
		return "", false
	}
	return fmt.Sprintf("%x", b[:]), true
}
