//go:build amd64 || arm64 || riscv64 || loong64

package maskinit

// Supported reports whether the helper knows this architecture's values.
const Supported = true

const (
	sysOpenat2 = 437      // the number shared by the architectures of the generic syscall table and x86
	oPath      = 0x200000 // O_PATH
)
