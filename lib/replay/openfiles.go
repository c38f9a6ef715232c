package replay

import (
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// recheckEvery is how long an open index file or a folder listing is
// used before the file system is asked again whether it changed.
const recheckEvery = time.Second

// openFiles keeps the local index files open between queries (each
// query would otherwise open, stat and close every file of a folder). A
// file is stat'ed again at most once a second; a changed one is opened
// anew, the old *os.File left to the readers still holding it (its
// finalizer closes it).
var openFiles = struct {
	sync.Mutex
	m map[string]*openFile
}{m: map[string]*openFile{}}

type openFile struct {
	f       *os.File
	size    int64
	mod     time.Time
	checked time.Time
}

// openIndexFile returns an open, regular file and its size.
func openIndexFile(path string) (io.ReaderAt, int64, error) {
	openFiles.Lock()
	defer openFiles.Unlock()
	now := time.Now()
	if of, ok := openFiles.m[path]; ok && now.Sub(of.checked) < recheckEvery {
		return of.f, of.size, nil
	}
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		delete(openFiles.m, path)
		return nil, 0, errNotFound
	}
	if of, ok := openFiles.m[path]; ok && of.size == st.Size() && of.mod.Equal(st.ModTime()) {
		of.checked = now
		return of.f, of.size, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, errNotFound
	}
	if len(openFiles.m) > 4096 {
		// bounded: forget them all (the readers keep theirs)
		openFiles.m = map[string]*openFile{}
	}
	openFiles.m[path] = &openFile{f: f, size: st.Size(), mod: st.ModTime(), checked: now}
	return f, st.Size(), nil
}

// dirLists keeps folder listings for recheckEvery.
var dirLists = struct {
	sync.Mutex
	m map[string]dirList
}{m: map[string]dirList{}}

type dirList struct {
	ents    []os.DirEntry
	checked time.Time
}

// readDirCached is os.ReadDir, listed again at most once a second.
func readDirCached(dir string) ([]os.DirEntry, error) {
	dirLists.Lock()
	defer dirLists.Unlock()
	if l, ok := dirLists.m[dir]; ok && time.Since(l.checked) < recheckEvery {
		return l.ents, nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		delete(dirLists.m, dir)
		return nil, err
	}
	if len(dirLists.m) > 4096 {
		dirLists.m = map[string]dirList{}
	}
	dirLists.m[dir] = dirList{ents: ents, checked: time.Now()}
	return ents, nil
}

// forgetIndexFile drops path from openFiles and its folder from
// dirLists, for an index just written anew.
func forgetIndexFile(path string) {
	openFiles.Lock()
	delete(openFiles.m, path)
	openFiles.Unlock()
	dirLists.Lock()
	delete(dirLists.m, filepath.Dir(path))
	dirLists.Unlock()
}
