"""Tiny random-weight causal LMs saved as real local model directories.

For tests and the benchmark's fallback: nothing is downloaded. A model is a
transformers config with random weights plus a word-level tokenizer built
here, both written with ``save_pretrained`` so that loading goes through
:func:`scoring.loading.load_model` exactly as for a real checkpoint.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import torch

SPECIAL_TOKENS = ("[UNK]", "[PAD]", "[BOS]", "[EOS]")
UNK_ID, PAD_ID, BOS_ID, EOS_ID = range(4)


@contextmanager
def single_torch_thread() -> Iterator[None]:
    """Run torch on one intra-op thread, then restore the previous count.

    Tiny models are all overhead: splitting 16-wide matrix products across
    threads costs a barrier per op, which on a small shared CPU made the
    scoring tests four times slower.
    """
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def vocabulary(vocab_size: int) -> list[str]:
    """Special tokens then the words ``w0, w1, ...`` up to ``vocab_size`` entries."""
    return list(SPECIAL_TOKENS) + [f"w{i}" for i in range(vocab_size - len(SPECIAL_TOKENS))]


def build_tokenizer(vocab_size: int = 64, *, add_bos: bool, padding_side: str = "right"):
    """A whitespace word-level tokenizer; one token per word ``w<i>``.

    Parameters
    ----------
    add_bos : bool
        Whether encoding puts ``[BOS]`` in front (Llama-style) or not
        (GPT-2-style; the BOS token still exists, for ``prepend_bos``).
    padding_side : {"right", "left"}
        The tokenizer's default padding side (the engine must not depend on it).
    """
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    words = vocabulary(vocab_size)
    core = Tokenizer(models.WordLevel(vocab={w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    if add_bos:
        core.post_processor = processors.TemplateProcessing(single="[BOS] $A", special_tokens=[("[BOS]", BOS_ID)])
    return PreTrainedTokenizerFast(
        tokenizer_object=core,
        unk_token="[UNK]",
        pad_token="[PAD]",
        bos_token="[BOS]",
        eos_token="[EOS]",
        padding_side=padding_side,
    )


def build_model(
    arch: str = "llama",
    *,
    vocab_size: int = 64,
    hidden: int = 16,
    layers: int = 2,
    max_positions: int = 64,
    seed: int = 0,
    init_range: float = 0.5,
):
    """A random-weight GPT-2 or Llama causal LM with a few thousand parameters.

    ``init_range`` is large on purpose: with the usual 0.02 the next-token
    distributions are nearly flat and every score is nearly the same.
    """
    from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM

    common = {
        "vocab_size": vocab_size,
        "initializer_range": init_range,
        "bos_token_id": BOS_ID,
        "eos_token_id": EOS_ID,
        "pad_token_id": PAD_ID,
    }
    torch.manual_seed(seed)
    if arch == "gpt2":
        config = GPT2Config(n_embd=hidden, n_layer=layers, n_head=2, n_positions=max_positions, **common)
        return GPT2LMHeadModel(config).eval()
    if arch == "llama":
        config = LlamaConfig(
            hidden_size=hidden,
            intermediate_size=2 * hidden,
            num_hidden_layers=layers,
            num_attention_heads=2,
            num_key_value_heads=1,
            max_position_embeddings=max_positions,
            **common,
        )
        return LlamaForCausalLM(config).eval()
    raise ValueError(f"arch must be 'gpt2' or 'llama', got {arch!r}")


def save_tiny_model(
    directory: str | Path,
    arch: str = "llama",
    *,
    add_bos: bool | None = None,
    padding_side: str = "right",
    seed: int = 0,
    vocab_size: int = 64,
    max_positions: int = 64,
) -> Path:
    """Build a tiny model and its tokenizer and save both to ``directory``.

    ``add_bos`` defaults to the architecture's habit: Llama tokenizers add
    BOS, GPT-2's do not.
    """
    directory = Path(directory)
    add_bos = (arch == "llama") if add_bos is None else add_bos
    build_model(arch, vocab_size=vocab_size, max_positions=max_positions, seed=seed).save_pretrained(directory)
    build_tokenizer(vocab_size, add_bos=add_bos, padding_side=padding_side).save_pretrained(directory)
    return directory


def save_tiny_gguf(
    path: str | Path, *, seed: int = 0, hidden: int = 16, layers: int = 2, max_positions: int = 64
) -> Path:
    """Write a tiny random-weight Llama as a float32 GGUF file, tokenizer included.

    The tokenizer is a sentencepiece-style ("llama") vocabulary of single
    characters, so that transformers' GGUF tokenizer conversion has nothing
    to merge; like llama.cpp it adds BOS. Needs the ``gguf`` package.
    """
    import gguf

    path = Path(path)
    chars = list("abcdefghijklmnopqrstuvwxyz0123456789.,")
    tokens = ["<unk>", "<s>", "</s>", "\u2581", *chars]
    heads, kv_heads, ff = 2, 1, 2 * hidden
    head_dim = hidden // heads
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_context_length(max_positions)
    writer.add_embedding_length(hidden)
    writer.add_block_count(layers)
    writer.add_feed_forward_length(ff)
    writer.add_head_count(heads)
    writer.add_head_count_kv(kv_heads)
    writer.add_rope_dimension_count(head_dim)
    writer.add_rope_freq_base(10000.0)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_vocab_size(len(tokens))
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_scores([0.0] * 4 + [-float(i) for i in range(len(chars))])
    writer.add_token_types([2, 3, 3, 1] + [1] * len(chars))  # unknown, control x2, normal...
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    writer.add_unk_token_id(0)
    rng = np.random.default_rng(seed)

    def add(name: str, *shape: int) -> None:
        writer.add_tensor(name, (rng.standard_normal(shape) * 0.5).astype(np.float32))

    add("token_embd.weight", len(tokens), hidden)
    for i in range(layers):
        writer.add_tensor(f"blk.{i}.attn_norm.weight", np.ones(hidden, np.float32))
        add(f"blk.{i}.attn_q.weight", hidden, hidden)
        add(f"blk.{i}.attn_k.weight", kv_heads * head_dim, hidden)
        add(f"blk.{i}.attn_v.weight", kv_heads * head_dim, hidden)
        add(f"blk.{i}.attn_output.weight", hidden, hidden)
        writer.add_tensor(f"blk.{i}.ffn_norm.weight", np.ones(hidden, np.float32))
        add(f"blk.{i}.ffn_gate.weight", ff, hidden)
        add(f"blk.{i}.ffn_up.weight", ff, hidden)
        add(f"blk.{i}.ffn_down.weight", hidden, ff)
    writer.add_tensor("output_norm.weight", np.ones(hidden, np.float32))
    add("output.weight", len(tokens), hidden)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def random_text(rng: np.random.Generator, n_words: int, vocab_size: int = 64) -> str:
    """``n_words`` random known words, space separated."""
    return " ".join(f"w{i}" for i in rng.integers(0, vocab_size - len(SPECIAL_TOKENS), size=n_words))


def pinned_torch_threads() -> Iterator[None]:
    """Generator body of the test suite's shared torch fixture (tests/conftest.py)."""
    with single_torch_thread():
        yield
