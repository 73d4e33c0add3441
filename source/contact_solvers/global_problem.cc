#include <percussion/contact_solvers/global_problem.h>

#include <percussion/core/exceptions.h>

#include <cmath>
#include <memory>
#include <string>

#include <klu.h>

namespace percussion::ContactSolvers
{
  void validate(const GlobalProblem &p, const std::string &context)
  {
    if (p.dimension != 2 && p.dimension != 3)
      throw InputError(context + ": dimension must be 2 or 3, not " + std::to_string(p.dimension));
    const int n = p.M.rows;
    const int nc = p.dimension * p.number_of_contacts;
    if (p.M.cols != n)
      throw InputError(context + ": M is not square (" + std::to_string(p.M.rows) + " x " + std::to_string(p.M.cols) +
                       ")");
    if (p.H.rows != n || p.H.cols != nc)
      throw InputError(context + ": H is " + std::to_string(p.H.rows) + " x " + std::to_string(p.H.cols) +
                       ", expected " + std::to_string(n) + " x " + std::to_string(nc));
    if (static_cast<int>(p.f.size()) != n)
      throw InputError(context + ": f has " + std::to_string(p.f.size()) + " entries, expected " + std::to_string(n));
    if (static_cast<int>(p.w.size()) != nc)
      throw InputError(context + ": w has " + std::to_string(p.w.size()) + " entries, expected " + std::to_string(nc));
    if (static_cast<int>(p.mu.size()) != p.number_of_contacts)
      throw InputError(context + ": mu has " + std::to_string(p.mu.size()) + " entries, expected " +
                       std::to_string(p.number_of_contacts));
    for (std::size_t a = 0; a < p.mu.size(); ++a)
      if (!(p.mu[a] >= 0.0) || !std::isfinite(p.mu[a]))
        throw InputError(context + ": mu[" + std::to_string(a) + "] = " + std::to_string(p.mu[a]) +
                         " (friction coefficients must be finite and >= 0)");
    for (const auto *v : {&p.f, &p.w, &p.M.values, &p.H.values})
      for (double x : *v)
        if (!std::isfinite(x))
          throw InputError(context + ": non-finite value in M, H, f or w");
  }

  namespace
  {
    /** KLU factorisation of M (CSR of M = CSC of Mᵀ; the transposed solve gives M⁻¹). */
    class MassSolver
    {
    public:
      explicit MassSolver(const CsrMatrix &M)
        : M_(M)
      {
        klu_defaults(&common_);
        symbolic_ = klu_analyze(M.rows, const_cast<int *>(M.row_start.data()), const_cast<int *>(M.column_index.data()),
                                &common_);
        if (symbolic_)
          numeric_ = klu_factor(const_cast<int *>(M.row_start.data()), const_cast<int *>(M.column_index.data()),
                                const_cast<double *>(M.values.data()), symbolic_, &common_);
        if (!symbolic_ || !numeric_ || common_.status != KLU_OK)
          throw SolverError("condense_to_local: the matrix M is singular (sparse LU failed)");
      }
      ~MassSolver()
      {
        if (numeric_)
          klu_free_numeric(&numeric_, &common_);
        if (symbolic_)
          klu_free_symbolic(&symbolic_, &common_);
      }
      void solve(double *x) { klu_tsolve(symbolic_, numeric_, M_.rows, 1, x, &common_); }

    private:
      const CsrMatrix &M_;
      klu_common common_;
      klu_symbolic *symbolic_ = nullptr;
      klu_numeric *numeric_ = nullptr;
    };
  } // namespace

  LocalProblem condense_to_local(const GlobalProblem &p)
  {
    validate(p);
    const int n = p.M.rows;
    const int nc = p.dimension * p.number_of_contacts;
    LocalProblem local;
    local.dimension = p.dimension;
    local.number_of_contacts = p.number_of_contacts;
    local.mu = p.mu;
    local.storage = MatrixStorage::sparse;
    local.q = p.w;
    if (nc == 0)
      {
        local.W_sparse.rows = local.W_sparse.cols = 0;
        return local;
      }
    MassSolver mass(p.M);
    const CsrMatrix Ht = p.H.transpose(); // row j of Hᵀ = column j of H
    std::vector<double> x(n, 0.0);

    // q = Hᵀ M⁻¹ f + w
    x = p.f;
    mass.solve(x.data());
    Ht.multiply_add(x.data(), local.q.data());

    // Column j of W = Hᵀ M⁻¹ H e_j, collected as row j of Wᵀ and transposed at the end: M may be
    // non-symmetric (some FCLIB files store only one triangle of M; the data are taken as given).
    std::vector<double> column(nc);
    CsrMatrix Wt;
    Wt.rows = Wt.cols = nc;
    Wt.row_start.assign(1, 0);
    for (int j = 0; j < nc; ++j)
      {
        std::fill(x.begin(), x.end(), 0.0);
        for (int k = Ht.row_start[j]; k < Ht.row_start[j + 1]; ++k)
          x[Ht.column_index[k]] = Ht.values[k];
        mass.solve(x.data());
        std::fill(column.begin(), column.end(), 0.0);
        Ht.multiply_add(x.data(), column.data());
        for (int i = 0; i < nc; ++i)
          if (column[i] != 0.0)
            {
              Wt.column_index.push_back(i);
              Wt.values.push_back(column[i]);
            }
        Wt.row_start.push_back(static_cast<int>(Wt.column_index.size()));
      }
    local.W_sparse = Wt.transpose();
    return local;
  }

  std::vector<double> recover_global_velocity(const GlobalProblem &p, const std::vector<double> &r)
  {
    std::vector<double> v = p.f;
    if (!r.empty())
      p.H.multiply_add(r.data(), v.data());
    if (p.M.rows > 0)
      {
        MassSolver mass(p.M);
        mass.solve(v.data());
      }
    return v;
  }
} // namespace percussion::ContactSolvers
