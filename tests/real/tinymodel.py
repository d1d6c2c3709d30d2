"""A tiny random llama GGUF made at test time: 2 layers, hidden size 64, a byte-level BPE vocabulary.

No weights can be downloaded, so the real-server tier builds its own model. The weights are seeded
noise; the server's grammar-constrained decoding (named `tool_choice`, `grammar`, `response_format`)
is what makes it emit real tool calls in the server's real wire format. Unconstrained, it writes
noise (control characters, brackets, CJK), a useful fuzz source for the whole loop.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

SEED = 1107
HIDDEN = 64
LAYERS = 2
HEADS = 4
FFN = 128
CONTEXT = 2048
VOCAB = 900
SPECIALS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")

# ChatML with tools in the Hermes convention (the template most GGUF chat models ship).
CHAT_TEMPLATE = """{%- if tools -%}
<|im_start|>system
{% if messages[0].role == 'system' %}{{ messages[0].content }}

{% endif %}# Tools
<tools>
{% for tool in tools %}{{ tool | tojson }}
{% endfor %}</tools><|im_end|>
{% elif messages[0].role == 'system' -%}
<|im_start|>system
{{ messages[0].content }}<|im_end|>
{% endif -%}
{%- for message in messages -%}
{%- if message.role == 'system' -%}
{%- elif message.role == 'assistant' -%}
<|im_start|>assistant
{{ message.content }}{% for call in message.tool_calls or [] %}<tool_call>
{"name": "{{ call.function.name }}", "arguments": {{ call.function.arguments }}}
</tool_call>{% endfor %}<|im_end|>
{% else -%}
<|im_start|>{{ message.role }}
{{ message.content }}<|im_end|>
{% endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}
<|im_start|>assistant
{% endif -%}"""

# What the tokenizer learns from: tool-call text, JSON, code, prose, CJK; merges split tags in pieces.
CORPUS_LINES = (
    "The quick brown fox jumps over the lazy dog.",
    "List the files in the workspace, then read one of them and say what it holds.",
    '{"name": "list_files", "arguments": {"path": "."}}',
    '{"name": "read_file", "arguments": {"path": "notes.txt"}}',
    "def main():\n    print('hello world')\n    return 0\n",
    "ファイルを読みます。文件内容如下。안녕하세요",
    "system user assistant tool function arguments content role name",
    "[/] [tool] (done) <b>bold</b> && || ;; $HOME ~/.config",
)


def _corpus() -> list[str]:
    import random

    rng = random.Random(SEED)
    words = " ".join(CORPUS_LINES).split()
    lines = list(CORPUS_LINES)
    for _ in range(400):
        lines.append(" ".join(rng.choice(words) for _ in range(rng.randint(3, 12))))
    return lines


def _train_tokenizer() -> dict:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB, special_tokens=list(SPECIALS), initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(_corpus(), trainer=trainer)
    return json.loads(tok.to_str())


TEMPLATES = Path(__file__).parent / "templates"  # published chat templates (templates/SOURCES.md)


def chat_template(name: str | None) -> str:
    """The template written into the GGUF: ours (ChatML + Hermes tools) or a published one by file stem."""
    return CHAT_TEMPLATE if name is None else (TEMPLATES / f"{name}.jinja").read_text()


def fingerprint(template: str = CHAT_TEMPLATE) -> str:
    """Changes whenever anything that shapes the file changes (so a cached model is rebuilt)."""
    parts = [SEED, HIDDEN, LAYERS, HEADS, FFN, CONTEXT, VOCAB, SPECIALS, template, CORPUS_LINES, 2]
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:12]


def build(path: Path, template: str = CHAT_TEMPLATE) -> Path:
    """Write the GGUF to `path` (atomically); returns it."""
    import gguf
    import numpy as np

    spec = _train_tokenizer()
    vocab: dict[str, int] = spec["model"]["vocab"]
    for added in spec.get("added_tokens", []):
        vocab[added["content"]] = added["id"]
    tokens = [t for t, _ in sorted(vocab.items(), key=lambda kv: kv[1])]
    merges = [m if isinstance(m, str) else " ".join(m) for m in spec["model"]["merges"]]
    types = [gguf.TokenType.CONTROL if t in SPECIALS else gguf.TokenType.NORMAL for t in tokens]

    tmp = path.with_suffix(".part")
    w = gguf.GGUFWriter(str(tmp), "llama")
    w.add_name("agentcli-tiny-random")
    w.add_context_length(CONTEXT)
    w.add_embedding_length(HIDDEN)
    w.add_block_count(LAYERS)
    w.add_feed_forward_length(FFN)
    w.add_head_count(HEADS)
    w.add_head_count_kv(HEADS)
    w.add_rope_dimension_count(HIDDEN // HEADS)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_file_type(gguf.LlamaFileType.ALL_F32)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("default")
    w.add_token_list(tokens)
    w.add_token_types(types)
    w.add_token_merges(merges)
    w.add_bos_token_id(vocab["<|endoftext|>"])
    w.add_eos_token_id(vocab["<|im_end|>"])
    w.add_add_bos_token(False)
    w.add_chat_template(template)

    rng = np.random.default_rng(SEED)

    def rand(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.08).astype(np.float32)

    n = len(tokens)
    w.add_tensor("token_embd.weight", rand(n, HIDDEN))
    w.add_tensor("output_norm.weight", np.ones(HIDDEN, dtype=np.float32))
    w.add_tensor("output.weight", rand(n, HIDDEN))
    for i in range(LAYERS):
        w.add_tensor(f"blk.{i}.attn_norm.weight", np.ones(HIDDEN, dtype=np.float32))
        for name in ("attn_q", "attn_k", "attn_v", "attn_output"):
            w.add_tensor(f"blk.{i}.{name}.weight", rand(HIDDEN, HIDDEN))
        w.add_tensor(f"blk.{i}.ffn_norm.weight", np.ones(HIDDEN, dtype=np.float32))
        w.add_tensor(f"blk.{i}.ffn_gate.weight", rand(FFN, HIDDEN))
        w.add_tensor(f"blk.{i}.ffn_up.weight", rand(FFN, HIDDEN))
        w.add_tensor(f"blk.{i}.ffn_down.weight", rand(HIDDEN, FFN))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    tmp.replace(path)
    return path


def cached(folder: Path, template: str | None = None) -> Path:
    """The model for this generator version and chat template, built once into `folder`."""
    text = chat_template(template)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"tiny-{template or 'chatml'}-{fingerprint(text)}.gguf"
    return path if path.exists() else build(path, text)


if __name__ == "__main__":
    import sys

    print(cached(Path(sys.argv[1] if len(sys.argv) > 1 else ".")))
