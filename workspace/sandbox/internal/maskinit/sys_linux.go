package maskinit

// Linux's values that package syscall lacks, the same on every
// architecture Autarch builds for (Supported).

const (
	prSetNoNewPrivs      = 38 // PR_SET_NO_NEW_PRIVS
	prCapAmbient         = 47 // PR_CAP_AMBIENT
	prCapAmbientIsSet    = 1  // PR_CAP_AMBIENT_IS_SET
	prCapAmbientClearAll = 4  // PR_CAP_AMBIENT_CLEAR_ALL
	capabilityVersion3   = 0x20080522
	resolveNoSymlinks    = 0x04 // RESOLVE_NO_SYMLINKS
	atFdcwd              = -100 // AT_FDCWD
)

// capHeader is struct __user_cap_header_struct.
type capHeader struct {
	version uint32
	pid     int32
}

// capData is struct __user_cap_data_struct.
type capData struct {
	effective, permitted, inheritable uint32
}

// openHow is struct open_how.
type openHow struct {
	flags, mode, resolve uint64
}
