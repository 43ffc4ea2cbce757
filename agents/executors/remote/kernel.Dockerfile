# The kernel image for executor_type="docker": Python, the scientific stack, ipykernel and
# the Jupyter Kernel Gateway. DockerExecutor builds it on first use (tag smolui-kernel:1)
# and runs it without network access (an internal Docker network), as a non-root user,
# with a read-only root file system and a private tmpfs home.
FROM python:3.11-slim

RUN pip install --no-cache-dir \
        "jupyter_kernel_gateway>=3.0" "ipykernel>=6.29" \
        numpy pandas matplotlib pillow openpyxl \
    && useradd --create-home --uid 1000 kernel

ENV MPLBACKEND=module://matplotlib_inline.backend_inline \
    PYTHONDONTWRITEBYTECODE=1
USER kernel
WORKDIR /home/kernel
EXPOSE 8888
CMD ["jupyter", "kernelgateway", "--ip=0.0.0.0", "--port=8888", "--port_retries=0"]
