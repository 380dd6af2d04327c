// ChannelShuffle: interleaves the groups of channels (ShuffleNet; nnabla's ChannelShuffle).
#include <memory>

#include "engine/backend/cpu/index_view_kernels.h"
#include "engine/ops/channel_shuffle/shuffle_view.h"
#include "engine/op_interface/op_registry.h"

namespace netsmith::ops {

void register_channel_shuffle(OpRegistry& registry) {
  OpSchema s;
  s.name = "ChannelShuffle";
  s.category = "Shape";
  s.doc = "Splits an axis (the channels) into `group` groups and interleaves them: the channels seen as "
          "(group, C/group) are read back as (C/group, group), as ShuffleNet mixes grouped convolutions.";
  s.inputs = {"x"};
  s.params = {{.name = "axis", .type = ParamType::Int, .defaultValue = 0, .min = 0.0,
               .help = "per-sample axis to shuffle, not counting the batch axis: 0 = channels"},
              {.name = "group", .type = ParamType::Int, .defaultValue = 1, .min = 1.0,
               .help = "number of groups; must divide the axis size (1 leaves the input as it is)"}};
  s.inferShape = [](const std::vector<Shape>& inputs, const OpParams& params) {
    checkShuffle(inputs.at(0), params);
    return inputs[0];
  };
  s.kernels["cpu"] = [](const KernelSetup& setup) -> std::unique_ptr<Kernel> {
    return std::make_unique<cpu::GatherKernel>(shuffleView(setup.inputShapes.at(0), setup.params), 0.0f);
  };
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      {.name = "group3", .inputs = {{6, 2, 3}}, .params = {{"group", 3}}},
      {.name = "axis1", .inputs = {{2, 4, 3}}, .params = {{"axis", 1}, {"group", 2}}},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
