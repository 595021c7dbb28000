package git

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
)

// packedObjects lists the objects the packs of the object directory dir
// hold, read from their .idx files (version 2; hexLen is the length of
// an object id in hex: 40, or 64 in a SHA-256 repository). A pack
// without its .idx is not used by git and is not listed.
func packedObjects(dir string, hexLen int) (map[string]bool, error) {
	if hexLen != 40 && hexLen != 64 {
		return nil, fmt.Errorf("sandbox objects: object ids of %d hex digits", hexLen)
	}
	idx, err := filepath.Glob(filepath.Join(dir, "pack", "*.idx"))
	if err != nil {
		return nil, fmt.Errorf("sandbox objects: %w", err)
	}
	have := map[string]bool{}
	for _, f := range idx {
		if err := readPackIndex(f, hexLen/2, have); err != nil {
			return nil, err
		}
	}
	return have, nil
}

// readPackIndex adds the object ids of a version 2 pack index to have.
func readPackIndex(path string, hashLen int, have map[string]bool) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("sandbox objects: %w", err)
	}
	const header = 8 + 256*4
	if len(data) < header || !bytes.Equal(data[:4], []byte("\xfftOc")) || binary.BigEndian.Uint32(data[4:8]) != 2 {
		return fmt.Errorf("sandbox objects: %s is no version 2 pack index", path)
	}
	n := int(binary.BigEndian.Uint32(data[header-4 : header]))
	// ids, CRCs and offsets, then the pack's and the index's checksums.
	if n < 0 || len(data) < header+n*(hashLen+8)+2*hashLen {
		return fmt.Errorf("sandbox objects: %s is truncated", path)
	}
	ids := data[header : header+n*hashLen]
	for i := range n {
		have[hex.EncodeToString(ids[i*hashLen:(i+1)*hashLen])] = true
	}
	return nil
}

// oidLen is the hex length of the object ids in tips (40 when none).
func oidLen(tips []string) int {
	if len(tips) > 0 {
		return len(tips[0])
	}
	return 40
}
