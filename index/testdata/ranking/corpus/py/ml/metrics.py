"""Evaluation metrics for ranking and classification."""
import math


def precision_recall(predicted: set, relevant: set) -> tuple[float, float]:
    hits = len(predicted & relevant)
    precision = hits / len(predicted) if predicted else 0.0
    recall = hits / len(relevant) if relevant else 0.0
    return precision, recall


def f1_score(precision: float, recall: float) -> float:
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


def ndcg_at_k(ranked: list, relevance: dict, k: int = 10) -> float:
    """Normalized discounted cumulative gain of a ranked list."""
    dcg = sum(relevance.get(doc, 0) / math.log2(i + 2) for i, doc in enumerate(ranked[:k]))
    ideal = sorted(relevance.values(), reverse=True)[:k]
    idcg = sum(rel / math.log2(i + 2) for i, rel in enumerate(ideal))
    return dcg / idcg if idcg else 0.0
