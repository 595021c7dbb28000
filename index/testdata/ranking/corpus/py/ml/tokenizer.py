"""A byte-pair encoding tokenizer."""
from collections import Counter


def get_pairs(word):
    return {(word[i], word[i + 1]) for i in range(len(word) - 1)}


def train_bpe(corpus: list[str], merges: int) -> list[tuple[str, str]]:
    """Learn byte-pair merges from a corpus, most frequent pair first."""
    vocab = Counter(tuple(w) + ("</w>",) for line in corpus for w in line.split())
    learned = []
    for _ in range(merges):
        pairs = Counter()
        for word, freq in vocab.items():
            for pair in get_pairs(word):
                pairs[pair] += freq
        if not pairs:
            break
        best = max(pairs, key=pairs.get)
        learned.append(best)
        new_vocab = Counter()
        for word, freq in vocab.items():
            out, i = [], 0
            while i < len(word):
                if i < len(word) - 1 and (word[i], word[i + 1]) == best:
                    out.append(word[i] + word[i + 1])
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            new_vocab[tuple(out)] += freq
        vocab = new_vocab
    return learned
