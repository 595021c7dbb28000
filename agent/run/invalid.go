package run

// InvalidError is a request the user can fix, whatever the run: the
// transports answer it as invalid params, with its message.
type InvalidError struct{ Err error }

func (e InvalidError) Error() string { return e.Err.Error() }
func (e InvalidError) Unwrap() error { return e.Err }

// Invalid reports that the error is the request's.
func (InvalidError) Invalid() bool { return true }

// Invalid marks err as a request the user can fix; nil stays nil.
func Invalid(err error) error {
	if err == nil {
		return nil
	}
	return InvalidError{err}
}
