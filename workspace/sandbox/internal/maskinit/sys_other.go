//go:build !(amd64 || arm64 || riscv64 || loong64)

package maskinit

// Supported reports whether the helper knows this architecture's values:
// here it does not, and bwrap makes every mask.
const Supported = false

const (
	sysOpenat2 = 0
	oPath      = 0
)
