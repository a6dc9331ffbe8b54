#pragma once
#include <c10/core/TensorImpl.h>

namespace at {

class Tensor {
public:
	Tensor() = default;
	explicit Tensor(std::shared_ptr<c10::TensorImpl> impl) : impl_(std::move(impl)) {}
	int64_t dim() const { return impl_ ? (int64_t)impl_->sizes.size() : 0; }
	int64_t size(int64_t d) const { return impl_->sizes.at((size_t)d); }
	int64_t numel() const { return impl_ ? impl_->numel() : 0; }
	c10::ScalarType scalar_type() const { return impl_->dtype; }
	template <typename T> T *data_ptr() const { return static_cast<T *>(impl_->data.get()); }
	std::string toString() const
	{
		std::ostringstream os;
		os << "Tensor[" << c10::to_string(scalar_type()) << "](";
		for (size_t i = 0; i < impl_->sizes.size(); i++)
			os << (i ? "," : "") << impl_->sizes[i];
		return os.str() + ")";
	}

private:
	std::shared_ptr<c10::TensorImpl> impl_;
};

} // namespace at
