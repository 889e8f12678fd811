// Virtual devices as module global infos: I.module_global_infos({"vdevice": [I.vdevice(...)]}).
#ifndef PIPESPLIT_IR_VDEVICE_H_
#define PIPESPLIT_IR_VDEVICE_H_

#include "pipesplit/ir/attrs.h"

namespace pipesplit::ir {

// An I.vdevice(target, vdevice_id=0, memory_scope="global") global info as TVM stores it: the
// id and the scope written out positionally, and a target given by the name of a kind whose
// configuration TVM fills in ("llvm") expanded to that configuration dict. Other calls, and
// targets of other kinds, are returned as written.
AttrCall CompleteVDevice(const AttrCall& call);

}  // namespace pipesplit::ir

#endif  // PIPESPLIT_IR_VDEVICE_H_
