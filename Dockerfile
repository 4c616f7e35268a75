# The BioRAG API image (used by docker-compose.yml with the `paper` preset).
# CPU torch is enough here: the LLM runs in vLLM, the query embedder is small. Build on a
# CUDA base image instead when the embedder should use a GPU.
FROM python:3.11-slim

ENV PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DO_NOT_TRACK=1 \
    SCARF_NO_ANALYTICS=1 \
    HF_HUB_OFFLINE=1 \
    TOKENIZERS_PARALLELISM=false

# llama-cpp-python (the embedded backend, a core dependency) compiles from source.
RUN apt-get update \
 && apt-get install -y --no-install-recommends build-essential cmake \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY pyproject.toml constraints.txt README.md ./
COPY biorag ./biorag
COPY retrievers ./retrievers
COPY indexing ./indexing
COPY training ./training
COPY application ./application
COPY serving ./serving
COPY cli ./cli
COPY evaluation ./evaluation

# torch first, CPU build, pinned; the constraints keep every later install from replacing it.
# llama.cpp portable (GGML_NATIVE=OFF), as `make setup` builds it: a native build on an AMX
# CPU crashes on the bundled GGUF (see the Makefile).
RUN pip install --index-url https://download.pytorch.org/whl/cpu torch==2.13.0 \
 && CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install -c constraints.txt .

RUN useradd --create-home --uid 10001 biorag && mkdir -p /data && chown biorag /data
USER biorag
ENV BIORAG_DATA_DIR=/data
VOLUME ["/data"]
EXPOSE 8080

HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8080/healthz', timeout=4)"

CMD ["biorag", "serve", "--host", "0.0.0.0", "--port", "8080"]
