// Package trust records which repository configuration a user has trusted.
//
// Repository configuration that runs processes (hooks today; MCP servers and
// quality-gate commands later) is data anyone who can write the repository
// can plant: an agent, a pull request, a cloned project. It runs only after
// the user approved that exact content. Approval stores a digest of the
// configuration files, per repository, in a file outside every repository
// (the user's config dir), where no sandboxed command can reach it; a change
// to any of the files gives a new digest, and the configuration is then
// reported and ignored until the user approves it again.
package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// Repository files whose content can make Autarch run a process; their
// combined digest is what a user trusts.
const (
	HooksFile  = ".autarch/hooks"
	ConfigFile = ".autarch/config.yaml"
	MCPFile    = ".mcp.json"
	// QualityFile configures quality gates, whose commands run at every
	// pulse's completion.
	QualityFile = ".autarch/quality.json"
)

// ExecutableFiles lists the files whose content a user trusts.
func ExecutableFiles() []string { return []string{HooksFile, ConfigFile, MCPFile, QualityFile} }

// maxConfigSize caps each configuration file; a larger one is refused.
const maxConfigSize = 1 << 20

// File is one configuration file of a repository.
type File struct {
	Name string // slash path relative to the repository top
	Data []byte
}

// Config is the executable configuration of one repository.
type Config struct {
	// Repo is the repository's top directory, symlinks resolved.
	Repo  string
	Files []File
}

// Empty reports whether the repository has no executable configuration.
func (c Config) Empty() bool { return len(c.Files) == 0 }

// Names lists the configuration files present.
func (c Config) Names() []string {
	var out []string
	for _, f := range c.Files {
		out = append(out, f.Name)
	}
	return out
}

// Digest identifies the exact content: the sorted file names with their
// lengths and bytes, hashed with SHA-256.
func (c Config) Digest() string {
	files := slices.Clone(c.Files)
	slices.SortFunc(files, func(a, b File) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	h := sha256.New()
	for _, f := range files {
		fmt.Fprintf(h, "%s\x00%d\x00", f.Name, len(f.Data))
		h.Write(f.Data)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// File returns the content of one configuration file (nil when absent).
func (c Config) File(name string) []byte {
	for _, f := range c.Files {
		if f.Name == name {
			return f.Data
		}
	}
	return nil
}

// Read reads the executable configuration of the repository at top. Files
// are read through an os.Root, so a symlinked .autarch or file that leaves
// the repository is refused rather than followed; only regular files count.
func Read(top string) (Config, error) {
	abs, err := filepath.Abs(top)
	if err != nil {
		return Config{}, fmt.Errorf("repository %q: %w", top, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return Config{}, fmt.Errorf("opening repository %s: %w", abs, err)
	}
	defer root.Close()
	c := Config{Repo: abs}
	for _, name := range ExecutableFiles() {
		data, err := readRegular(root, name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return Config{}, fmt.Errorf("reading %s: %w", name, err)
		}
		c.Files = append(c.Files, File{Name: name, Data: data})
	}
	return c, nil
}

// readRegular reads a regular file inside root, refusing anything else.
func readRegular(root *os.Root, name string) ([]byte, error) {
	fi, err := root.Lstat(filepath.FromSlash(name))
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s): configuration must be a plain file in the repository", name, fi.Mode().Type())
	}
	if fi.Size() > maxConfigSize {
		return nil, fmt.Errorf("%s is %d bytes, over the %d-byte limit for configuration", name, fi.Size(), maxConfigSize)
	}
	return root.ReadFile(filepath.FromSlash(name))
}

// record is what the store keeps per repository.
type record struct {
	Digest    string    `json:"digest"`
	Files     []string  `json:"files"`
	TrustedAt time.Time `json:"trustedAt"`
}

// Store is the user's record of trusted configurations: a JSON file
// outside every repository.
type Store struct {
	path string
	mu   sync.Mutex
}

// DefaultPath is the store's file: $AUTARCH_TRUST_FILE, else
// <user config dir>/autarch/trusted.json.
func DefaultPath() (string, error) {
	if p := os.Getenv("AUTARCH_TRUST_FILE"); p != "" {
		return p, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("locating the user config dir for the trust store: %w (set AUTARCH_TRUST_FILE)", err)
	}
	return filepath.Join(dir, "autarch", "trusted.json"), nil
}

// Open returns the store at the default path.
func Open() (*Store, error) {
	p, err := DefaultPath()
	if err != nil {
		return nil, err
	}
	return At(p), nil
}

// At returns the store kept in the file path.
func At(path string) *Store { return &Store{path: path} }

// Path is the store's file.
func (s *Store) Path() string { return s.path }

// Status is what the store says of a repository's configuration.
type Status int

const (
	// None: the repository has no executable configuration.
	None Status = iota
	// Trusted: the user approved exactly this content.
	Trusted
	// New: the user never approved a configuration of this repository.
	New
	// Changed: the user approved another content; this one is unapproved.
	Changed
)

func (st Status) String() string {
	switch st {
	case None:
		return "none"
	case Trusted:
		return "trusted"
	case New:
		return "not trusted yet"
	case Changed:
		return "changed since it was trusted"
	}
	return "unknown"
}

// Check says whether c is trusted.
func (s *Store) Check(c Config) (Status, error) {
	if c.Empty() {
		return None, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, err := s.load()
	if err != nil {
		return New, err
	}
	r, ok := recs[c.Repo]
	switch {
	case !ok:
		return New, nil
	case r.Digest == c.Digest():
		return Trusted, nil
	}
	return Changed, nil
}

// Trust records c as trusted by the user, replacing an earlier record of
// the same repository. The file is replaced atomically.
func (s *Store) Trust(c Config) error {
	return s.update(func(recs map[string]record) {
		recs[c.Repo] = record{Digest: c.Digest(), Files: c.Names(), TrustedAt: time.Now().UTC()}
	})
}

// Revoke forgets the trust of a repository.
func (s *Store) Revoke(repo string) error {
	return s.update(func(recs map[string]record) { delete(recs, repo) })
}

// update applies change to the records under the store's lock and saves
// them.
func (s *Store) update(change func(recs map[string]record)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, err := s.load()
	if err != nil {
		return err
	}
	change(recs)
	return s.save(recs)
}

func (s *Store) load() (map[string]record, error) {
	recs := map[string]record{}
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return recs, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the trust store: %w", err)
	}
	if err := json.Unmarshal(data, &recs); err != nil {
		return nil, fmt.Errorf("trust store %s is corrupt (%v): delete it and trust your repositories again", s.path, err)
	}
	return recs, nil
}

func (s *Store) save(recs map[string]record) error {
	data, err := json.MarshalIndent(recs, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the trust store: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("creating the trust store's directory: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), ".trusted-*.json")
	if err != nil {
		return fmt.Errorf("writing the trust store: %w", err)
	}
	_, werr := tmp.Write(data)
	serr := tmp.Sync()
	cerr := tmp.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing the trust store: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing the trust store: %w", err)
	}
	return nil
}
