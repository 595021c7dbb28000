package swarm

import (
	"context"
	"errors"

	"github.com/nats-io/nats.go/jetstream"
)

// EnsureStream creates the stream of cfg, or returns the existing one
// when its configuration is already cfg, and updates it only when its
// configuration differs. jetstream's CreateOrUpdateStream updates first,
// every time: every process opening a swarm or a fleet would rewrite the
// stream's configuration while others create consumers on it, which
// nats-server does not synchronise (the file store's config is written
// under the block locks and read without them when a consumer is
// added: a data race seen under -race). A create with the same
// configuration changes nothing on the server.
func EnsureStream(ctx context.Context, js jetstream.JetStream, cfg jetstream.StreamConfig) (jetstream.Stream, error) {
	st, err := js.CreateStream(ctx, cfg)
	if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
		return js.UpdateStream(ctx, cfg)
	}
	return st, err
}

// EnsureKeyValue is EnsureStream for the key-value bucket of cfg.
func EnsureKeyValue(ctx context.Context, js jetstream.JetStream, cfg jetstream.KeyValueConfig) (jetstream.KeyValue, error) {
	kv, err := js.CreateKeyValue(ctx, cfg)
	if errors.Is(err, jetstream.ErrBucketExists) {
		return js.UpdateKeyValue(ctx, cfg)
	}
	return kv, err
}

// EnsureObjectStore is EnsureStream for the object store of cfg.
func EnsureObjectStore(ctx context.Context, js jetstream.JetStream, cfg jetstream.ObjectStoreConfig) (jetstream.ObjectStore, error) {
	obs, err := js.CreateObjectStore(ctx, cfg)
	if errors.Is(err, jetstream.ErrBucketExists) {
		return js.UpdateObjectStore(ctx, cfg)
	}
	return obs, err
}
