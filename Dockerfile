# mnemo as one static binary in an image with nothing else: for the isolated
# push-mode process (mnemo orchestrate) or the server.
#
#   docker build -t mnemo .
#   docker run --rm -v mnemo-data:/data -e MNEMO_GITHUB_TOKEN \
#       mnemo --namespace ops orchestrate --tracker github --github-repo acme/ops --once
#
# The image has no git: --repo (commits touching a task) needs the binary on a
# host with git, or an image built FROM a distribution that has it.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/mnemo ./cmd/mnemo && mkdir -p /out/data/tmp

FROM scratch
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/mnemo /mnemo
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
ENV MNEMO_DB=/data/mnemo.db HOME=/data TMPDIR=/data/tmp
VOLUME /data
ENTRYPOINT ["/mnemo"]
CMD ["orchestrate", "--help"]
