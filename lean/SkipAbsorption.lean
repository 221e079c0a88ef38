import SkipAbsorption.Basic
import SkipAbsorption.Homogeneous
import SkipAbsorption.Gated
import SkipAbsorption.Depth
