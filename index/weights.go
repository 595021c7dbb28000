package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// EmbedderWeights are the int8 weights of a trained term embedder (see
// TrainedEmbedder): one row of Dim weights per vocabulary term, shared by
// queries and code, plus separate query-side and code-side rows for the
// first Adjusted terms (the most frequent), which replace the shared row on
// their side. Each row has its own scale (weight = int8 × scale).
type EmbedderWeights struct {
	Version  string
	Dim      int
	Vocab    []string
	IDF      []float32 // per term, the inverse document frequency of training
	Adjusted int
	// Rows holds len(Vocab) shared rows, then Adjusted query rows, then
	// Adjusted code rows, Dim int8s each.
	Rows  []int8
	Scale []float32
}

const weightsMagic = "AUTARCH-EMB1"

// MarshalBinary encodes the weights (little-endian, length-prefixed).
func (w *EmbedderWeights) MarshalBinary() ([]byte, error) {
	if err := w.check(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(weightsMagic)
	putString(&b, w.Version)
	putUvarint(&b, uint64(w.Dim))
	putUvarint(&b, uint64(len(w.Vocab)))
	putUvarint(&b, uint64(w.Adjusted))
	for _, t := range w.Vocab {
		putString(&b, t)
	}
	for _, x := range w.IDF {
		binary.Write(&b, binary.LittleEndian, x)
	}
	for _, x := range w.Scale {
		binary.Write(&b, binary.LittleEndian, x)
	}
	for _, x := range w.Rows {
		b.WriteByte(byte(x))
	}
	return b.Bytes(), nil
}

// UnmarshalBinary decodes weights MarshalBinary encoded.
func (w *EmbedderWeights) UnmarshalBinary(data []byte) error {
	r := bytes.NewReader(data)
	magic := make([]byte, len(weightsMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != weightsMagic {
		return errors.New("embedder weights: not a weights file (bad magic)")
	}
	var err error
	if w.Version, err = getString(r); err != nil {
		return fmt.Errorf("embedder weights: %w", err)
	}
	dim, err1 := binary.ReadUvarint(r)
	n, err2 := binary.ReadUvarint(r)
	k, err3 := binary.ReadUvarint(r)
	if err := errors.Join(err1, err2, err3); err != nil {
		return fmt.Errorf("embedder weights: header: %w", err)
	}
	if dim == 0 || dim > 4096 || n > 1<<22 || k > n || uint64(r.Len()) < (n+2*k)*dim {
		return fmt.Errorf("embedder weights: implausible sizes dim %d, vocabulary %d, adjusted %d", dim, n, k)
	}
	w.Dim, w.Adjusted = int(dim), int(k)
	w.Vocab = make([]string, n)
	for i := range w.Vocab {
		if w.Vocab[i], err = getString(r); err != nil {
			return fmt.Errorf("embedder weights: vocabulary: %w", err)
		}
	}
	w.IDF = make([]float32, n)
	w.Scale = make([]float32, n+2*k)
	if err := binary.Read(r, binary.LittleEndian, w.IDF); err != nil {
		return fmt.Errorf("embedder weights: idf: %w", err)
	}
	if err := binary.Read(r, binary.LittleEndian, w.Scale); err != nil {
		return fmt.Errorf("embedder weights: scales: %w", err)
	}
	rows := make([]byte, (n+2*k)*dim)
	if _, err := io.ReadFull(r, rows); err != nil {
		return fmt.Errorf("embedder weights: rows: %w", err)
	}
	w.Rows = bytesInt8(rows)
	return w.check()
}

func (w *EmbedderWeights) check() error {
	n, k := len(w.Vocab), w.Adjusted
	switch {
	case w.Dim <= 0 || k < 0 || k > n:
		return fmt.Errorf("embedder weights: bad sizes dim %d, adjusted %d of %d", w.Dim, k, n)
	case len(w.IDF) != n || len(w.Scale) != n+2*k || len(w.Rows) != (n+2*k)*w.Dim:
		return errors.New("embedder weights: table lengths do not match the vocabulary")
	}
	for _, x := range w.IDF {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return errors.New("embedder weights: IDF not finite")
		}
	}
	return nil
}

// QuantizeRow stores a float row as int8s and returns its scale.
func QuantizeRow(v []float32, q []int8) float32 { return quantize(v, q) }

func putUvarint(b *bytes.Buffer, x uint64) {
	var buf [binary.MaxVarintLen64]byte
	b.Write(buf[:binary.PutUvarint(buf[:], x)])
}

func putString(b *bytes.Buffer, s string) {
	putUvarint(b, uint64(len(s)))
	b.WriteString(s)
}

func getString(r *bytes.Reader) (string, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return "", err
	}
	if n > 1<<10 || n > uint64(r.Len()) {
		return "", fmt.Errorf("string of %d bytes", n)
	}
	b := make([]byte, n)
	_, err = io.ReadFull(r, b)
	return string(b), err
}
