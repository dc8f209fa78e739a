package main

import (
	"archive/zip"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// zipBuilder collects files and writes them as one zip archive: entries sorted by name,
// deflated, with a fixed modification time, so the same input gives the same bytes (and the
// same output_base64sha256) on every run and every machine.
type zipBuilder struct {
	mode    *os.FileMode // output_file_mode, when set
	entries []zipEntry
}

type zipEntry struct {
	name string
	data []byte
	mode os.FileMode
}

var fixedTime = time.Date(1980, time.January, 1, 0, 0, 0, 0, time.UTC)

func (z *zipBuilder) addContent(name string, data []byte) {
	z.entries = append(z.entries, zipEntry{name: name, data: data, mode: 0o644})
}

func (z *zipBuilder) addFile(file string) error {
	info, err := os.Stat(file)
	if err != nil {
		return fmt.Errorf("could not archive missing file: %s", file)
	}
	if info.IsDir() {
		return fmt.Errorf("%s is a directory (use source_dir)", file)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	z.entries = append(z.entries, zipEntry{name: filepath.ToSlash(filepath.Base(file)), data: data, mode: info.Mode().Perm()})
	return nil
}

// addDir adds every regular file below dir (following symbolic links, unless they are links
// to directories and skipSymlinkDirs is set), except the output archive itself and the
// excluded paths.
func (z *zipBuilder) addDir(dir, outputPath string, excludes []string, skipSymlinkDirs bool) error {
	info, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("could not archive missing directory: %s", dir)
	}
	if !info.IsDir() {
		return fmt.Errorf("could not archive directory that is a file: %s", dir)
	}
	outAbs, _ := filepath.Abs(outputPath)
	var walk func(abs, rel string, depth int) error
	walk = func(abs, rel string, depth int) error {
		if depth > 64 {
			return fmt.Errorf("%s: too many nested directories (a symbolic link loop?)", abs)
		}
		entries, err := os.ReadDir(abs)
		if err != nil {
			return err
		}
		for _, e := range entries {
			childAbs := filepath.Join(abs, e.Name())
			childRel := e.Name()
			if rel != "" {
				childRel = rel + "/" + e.Name()
			}
			if excluded(childRel, excludes) {
				continue
			}
			if a, _ := filepath.Abs(childAbs); a == outAbs {
				continue
			}
			info, err := os.Stat(childAbs) // follows links
			if err != nil {
				return fmt.Errorf("error reading %s: %s", childAbs, err)
			}
			if info.IsDir() {
				if e.Type()&os.ModeSymlink != 0 && skipSymlinkDirs {
					continue
				}
				if err := walk(childAbs, childRel, depth+1); err != nil {
					return err
				}
				continue
			}
			if !info.Mode().IsRegular() {
				continue
			}
			data, err := os.ReadFile(childAbs)
			if err != nil {
				return err
			}
			z.entries = append(z.entries, zipEntry{name: childRel, data: data, mode: info.Mode().Perm()})
		}
		return nil
	}
	return walk(dir, "", 0)
}

func (z *zipBuilder) write(outputPath string) error {
	if dir := filepath.Dir(outputPath); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("error creating output path: %s", err)
		}
	}
	sort.SliceStable(z.entries, func(i, j int) bool { return z.entries[i].name < z.entries[j].name })
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, e := range z.entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: fixedTime}
		mode := e.mode
		if z.mode != nil {
			mode = *z.mode
		}
		h.SetMode(mode)
		f, err := w.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := f.Write(e.data); err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	return os.WriteFile(outputPath, buf.Bytes(), 0o644)
}
