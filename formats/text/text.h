/*
 * text.h — the door of formats/text, the Apple-style .crash text: its
 * AS-SAFE writer (write_text.h) and its reader's scanning pieces, which
 * the .ips reader shares for the text it embeds (read_text.h).
 */
#ifndef PM_FORMATS_TEXT_H
#define PM_FORMATS_TEXT_H

#include "read_text.h"
#include "write_text.h"

#endif
