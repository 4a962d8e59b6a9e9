"""The descriptor pool of jiffy's generated protobuf modules.

Private so that the official `momento` SDK, which registers the same message
names in protobuf's default pool, can be imported in the same process.
"""

from google.protobuf import descriptor_pool

POOL = descriptor_pool.DescriptorPool()
