// Package graph finds shortest paths in weighted graphs.
package graph

import "container/heap"

// Edge is a weighted edge to a node.
type Edge struct {
	To     int
	Weight float64
}

type item struct {
	node int
	dist float64
}

type queue []item

func (q queue) Len() int           { return len(q) }
func (q queue) Less(i, j int) bool { return q[i].dist < q[j].dist }
func (q queue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *queue) Push(x any)        { *q = append(*q, x.(item)) }
func (q *queue) Pop() any          { old := *q; it := old[len(old)-1]; *q = old[:len(old)-1]; return it }

// ShortestPaths is Dijkstra's algorithm from src over an adjacency list.
func ShortestPaths(adj [][]Edge, src int) []float64 {
	dist := make([]float64, len(adj))
	for i := range dist {
		dist[i] = -1
	}
	dist[src] = 0
	q := &queue{{src, 0}}
	for q.Len() > 0 {
		cur := heap.Pop(q).(item)
		if cur.dist > dist[cur.node] && dist[cur.node] >= 0 {
			continue
		}
		for _, e := range adj[cur.node] {
			d := cur.dist + e.Weight
			if dist[e.To] < 0 || d < dist[e.To] {
				dist[e.To] = d
				heap.Push(q, item{e.To, d})
			}
		}
	}
	return dist
}
