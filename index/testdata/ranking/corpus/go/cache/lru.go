// Package cache holds an in-memory least-recently-used cache.
package cache

import "container/list"

type entry[K comparable, V any] struct {
	key   K
	value V
}

// LRU evicts the least recently used entry when it is full.
type LRU[K comparable, V any] struct {
	capacity int
	order    *list.List
	items    map[K]*list.Element
}

// NewLRU makes a cache holding at most capacity entries.
func NewLRU[K comparable, V any](capacity int) *LRU[K, V] {
	return &LRU[K, V]{capacity: capacity, order: list.New(), items: map[K]*list.Element{}}
}

// Get returns the cached value and marks it recently used.
func (c *LRU[K, V]) Get(key K) (V, bool) {
	if el, ok := c.items[key]; ok {
		c.order.MoveToFront(el)
		return el.Value.(entry[K, V]).value, true
	}
	var zero V
	return zero, false
}

// Put stores a value, evicting the oldest entry when over capacity.
func (c *LRU[K, V]) Put(key K, value V) {
	if el, ok := c.items[key]; ok {
		el.Value = entry[K, V]{key, value}
		c.order.MoveToFront(el)
		return
	}
	c.items[key] = c.order.PushFront(entry[K, V]{key, value})
	if c.order.Len() > c.capacity {
		oldest := c.order.Back()
		c.order.Remove(oldest)
		delete(c.items, oldest.Value.(entry[K, V]).key)
	}
}
