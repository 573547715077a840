package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** Interleaves the channels of {@code [N, C, *]} input from {@code groups} groups, as PyTorch's {@code nn.ChannelShuffle}; see {@link F#channelShuffle}. */
public class ChannelShuffle extends Module {
    public final int groups;

    public ChannelShuffle(int groups) { this.groups = groups; }

    @Override
    public Tensor forward(Tensor input) { return F.channelShuffle(input, groups); }

    @Override
    protected String extraRepr() { return "groups=" + groups; }
}
