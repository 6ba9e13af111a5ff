"""gradrs.version (torch.version): environment reports print `torch.version.cuda`; a CPU build's
toolkit versions are None."""

from conftest import G


def test_version_module(torch):
    import gradrs.version as ours

    for name in ("cuda", "hip", "rocm", "xpu", "debug"):
        assert getattr(ours, name) == getattr(torch.version, name), name
    assert ours.__version__ == G.__version__ and isinstance(ours.git_version, str)
    assert G.version is ours  # imported by the package, as torch.version
