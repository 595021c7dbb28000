// Package auth hashes and checks user passwords.
package auth

import (
	"crypto/rand"
	"crypto/subtle"
	"errors"

	"golang.org/x/crypto/argon2"
)

// ErrMismatch is returned when a password does not match its hash.
var ErrMismatch = errors.New("password does not match")

// params are the argon2id cost settings.
type params struct {
	time, memory uint32
	threads      uint8
	keyLen       uint32
}

var defaults = params{time: 1, memory: 64 * 1024, threads: 4, keyLen: 32}

// HashPassword derives a salted argon2id hash of a user's password.
func HashPassword(password string) (salt, hash []byte, err error) {
	salt = make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return nil, nil, err
	}
	p := defaults
	return salt, argon2.IDKey([]byte(password), salt, p.time, p.memory, p.threads, p.keyLen), nil
}

// CheckPassword compares in constant time.
func CheckPassword(password string, salt, hash []byte) error {
	p := defaults
	got := argon2.IDKey([]byte(password), salt, p.time, p.memory, p.threads, p.keyLen)
	if subtle.ConstantTimeCompare(got, hash) != 1 {
		return ErrMismatch
	}
	return nil
}
