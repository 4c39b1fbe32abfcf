// One HTTP header as lake sends or receives it.
#ifndef LAKE_IO_S3HTTP_HTTP_HEADER_H_
#define LAKE_IO_S3HTTP_HTTP_HEADER_H_

#include <string>

namespace lake::s3http {

struct HttpHeader {
  std::string name;
  std::string value;
};

}  // namespace lake::s3http

#endif  // LAKE_IO_S3HTTP_HTTP_HEADER_H_
