// Incremental SHA-256 on OpenSSL EVP (which uses SHA-NI where the CPU has
// it). The digest algorithm is fetched once per process, not per object;
// one-shot digests of short inputs skip EVP (sha256.cc).
#ifndef LAKE_ENGINE_SHA256_H_
#define LAKE_ENGINE_SHA256_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

typedef struct evp_md_ctx_st EVP_MD_CTX;

namespace lake {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void Update(const uint8_t* data, size_t len);
  // The digest of everything updated so far, as 64 lowercase hex
  // characters. The hasher cannot be updated afterwards.
  std::string FinishHex();
  // The same, written to `hex` without allocating.
  void FinishHexTo(char (&hex)[64]);

 private:
  friend void Sha256HexTo(std::string_view bytes, char (&hex)[64]);
  EVP_MD_CTX* ctx_;
};

// The SHA-256 of `bytes` in one call, as 64 lowercase hex characters.
std::string Sha256Hex(std::string_view bytes);
// The same, written to `hex` without allocating.
void Sha256HexTo(std::string_view bytes, char (&hex)[64]);

}  // namespace lake

#endif  // LAKE_ENGINE_SHA256_H_
