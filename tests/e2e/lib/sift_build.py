"""What the e2e tests need to know about how the sift binary under test was built."""
import subprocess


def sanitized(sift):
    """Whether the sift binary is built with AddressSanitizer (it links libasan), whose shadow
    memory and quarantine make address-space limits and RSS say nothing about sift."""
    libraries = subprocess.run(["ldd", sift], capture_output=True, text=True).stdout
    return "libasan" in libraries
