#include "decoder.h"

int32_t pi_read_row(pi_decoder *decoder, uint8_t *row, pi_error *error) {
  if (decoder->next_row >= decoder->geometry.height) {
    pi_fail(error, PI_CORRUPT, "read past the last row");
    return PI_CORRUPT;
  }
  int32_t status = decoder->read_row(decoder, row, error);
  if (status == PI_OK) decoder->next_row++;
  return status;
}

uint32_t pi_warnings(const pi_decoder *decoder) { return decoder->warnings; }

void pi_close(pi_decoder *decoder) {
  if (decoder) decoder->close(decoder);
}
